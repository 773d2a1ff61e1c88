-- xlua: the progress bar and the small helpers Torch-era scripts take from xlua (string.split,
-- table.splice, xlua.require, xlua.unpack, ...). `xlua` is also a global.

local sys = require 'sys'

local xlua = rawget(_G, 'xlua')
if type(xlua) ~= 'table' then xlua = {} end

local floor, max, min = math.floor, math.max, math.min

-- 1D3h, 2h5m, 1m3s, 1s23ms, 12ms: the two largest non-zero units; 0ms for nothing.
function xlua.formatTime(seconds)
   if type(seconds) ~= 'number' or seconds ~= seconds or seconds < 0 then seconds = 0 end
   if seconds == math.huge then return 'inf' end
   local units = {
      { 'D', floor(seconds / 86400) },
      { 'h', floor(seconds / 3600) % 24 },
      { 'm', floor(seconds / 60) % 60 },
      { 's', floor(seconds) % 60 },
      { 'ms', floor((seconds - floor(seconds)) * 1000) },
   }
   local out, shown = {}, 0
   for _, u in ipairs(units) do
      if u[2] > 0 and shown < 2 then
         out[#out + 1] = u[2] .. u[1]
         shown = shown + 1
      end
   end
   if shown == 0 then return '0ms' end
   return table.concat(out)
end

----------------------------------------------------------------------------------------------------
-- progress(i, n): xlua's bar, byte for byte. With W the terminal's width (COLUMNS, else the
-- terminal's, else 80; at most 120), each call writes
--   ' [' .. W-34 cells ('=' done, '>' the current cell, '.' to go) .. '] '
-- then 30 blanks and 30 backspaces (to clear what a longer line left), then ' ETA: t | Step: s'
-- (' Tot: t | Step: s' once the bar is full), then moves back over the middle of the bar and writes
-- ' i/n ' there, and ends with '\r'. A redraw starts with '\r'; a full bar ends its line with '\n'.
-- Once a bar is full, a call whose cell is before the last one drawn starts a new bar.
----------------------------------------------------------------------------------------------------
do
   local SMOOTHING = 100 -- Step is the mean over at most this many recent calls

   local function term_width()
      local cols = tonumber(os.getenv('COLUMNS'))
      if not cols and sys.termwidth and sys.isatty(1) then cols = sys.termwidth(1) end
      return min(cols or 80, 120)
   end

   local finished, last_cell = true, -1
   local start, times, indices

   function xlua.progress(current, goal)
      if type(current) ~= 'number' then
         error('xlua.progress: bad argument #1 (number expected, got ' .. type(current) .. ')', 2)
      end
      if type(goal) ~= 'number' then
         error('xlua.progress: bad argument #2 (number expected, got ' .. type(goal) .. ')', 2)
      end
      local width = term_width()
      local cells = width - 34
      local cell = goal ~= 0 and floor(current * cells / goal) or cells
      local out = {}
      if finished and (last_cell == -1 or cell < last_cell) then
         finished = false
         start = sys.clock()
         times, indices = { 0 }, { current }
      else
         out[1] = '\r'
      end
      last_cell = cell
      out[#out + 1] = ' ['
      for i = 1, cells do
         out[#out + 1] = i < cell and '=' or (i == cell and '>' or '.')
      end
      out[#out + 1] = '] '
      local clear = width - cells - 4
      out[#out + 1] = string.rep(' ', clear) .. string.rep('\b', clear)

      -- time per item over the recent calls
      local elapsed = sys.clock() - start
      local step = current ~= indices[1] and (elapsed - times[1]) / (current - indices[1]) or 0
      if step < 0 then step = 0 end
      times[#times + 1], indices[#indices + 1] = elapsed, current
      if #times > SMOOTHING then
         table.remove(times, 1)
         table.remove(indices, 1)
      end
      local tm = cell < cells and ' ETA: ' .. xlua.formatTime(max(0, (goal - current) * step))
         or ' Tot: ' .. xlua.formatTime(elapsed)
      tm = tm .. ' | Step: ' .. xlua.formatTime(step)
      out[#out + 1] = tm
      -- back to the middle of the bar for the counter
      out[#out + 1] = string.rep('\b', floor(5 + #tm + cells / 2))
      out[#out + 1] = ' ' .. string.format('%.14g', current) .. '/' .. string.format('%.14g', goal) .. ' '
      if cell == cells then
         finished = true
         out[#out + 1] = '\n'
      end
      out[#out + 1] = '\r'
      io.write(table.concat(out))
      io.flush()
   end
end

----------------------------------------------------------------------------------------------------
-- Strings and tables
----------------------------------------------------------------------------------------------------

-- string.split(str, pat): pieces of `str` between matches of the Lua pattern `pat` (see sys.split).
function string.split(str, pat)
   return sys._split('string.split', str, pat)
end

-- string.tosymbol('a.b.c'): the value that expression names; an error if it is nil.
function string.tosymbol(str)
   local f, err = loadstring('return ' .. str)
   if not f then error(err, 2) end
   local ok, result = pcall(f)
   if not ok then error(result, 2) end
   if result == nil then error('symbol "' .. str .. '" does not exist', 2) end
   return result
end

-- table.splice(t, start, length): (t without the `length` elements at `start`, those elements).
function table.splice(tbl, start, length)
   start, length = start or 1, length or 1
   local kept, removed = {}, {}
   for i, v in ipairs(tbl) do
      if i >= start and i < start + length then removed[#removed + 1] = v else kept[#kept + 1] = v end
   end
   return kept, removed
end

-- table.prune(t[, hash[, merge]]): the elements of t with duplicates (by hash) removed.
function table.prune(tbl, hash, merge)
   hash = hash or function(v) return v end
   local seen = {}
   for _, v in ipairs(tbl) do
      local h = hash(v)
      if seen[h] ~= nil and merge then seen[h] = merge(v, seen[h]) else seen[h] = v end
   end
   local out = {}
   for _, v in pairs(seen) do out[#out + 1] = v end
   return out
end

----------------------------------------------------------------------------------------------------
-- Printing, errors, packages
----------------------------------------------------------------------------------------------------

-- print as xlua had it: tables as {[k] = v, ...} on several lines, long values cut at 40 characters.
function xlua.print(obj, ...)
   if type(obj) == 'table' then
      local mt = getmetatable(obj)
      if mt and mt.__tostring then
         io.write(tostring(obj))
      else
         io.write('{')
         local first = true
         for k, v in pairs(obj) do
            if not first then io.write(',\n ') end
            first = false
            local text = type(v) == 'userdata' and '<userdata>' or tostring(v):gsub('\n', '\\n')
            if #text > 40 then text = text:sub(1, 40) .. sys.COLORS.none .. ' ... ' end
            io.write('[' .. tostring(k) .. '] = ' .. text)
         end
         io.write('}')
      end
   else
      io.write(tostring(obj))
   end
   if select('#', ...) > 0 then
      io.write('    ')
      return xlua.print(...)
   end
   io.write('\n')
end
rawset(_G, 'xprint', xlua.print)

-- error(message[, domain[, usage]]): raises '<domain> message' in red, the usage text below.
function xlua.error(message, domain, usage)
   local c = sys.COLORS
   message = tostring(message)
   if domain then message = '<' .. tostring(domain) .. '> ' .. message end
   local text = c.Red .. message .. c.none
   if usage then text = text .. '\n' .. tostring(usage) end
   error(text, 2)
end
rawset(_G, 'xerror', xlua.error)

-- require(name): the module, or false (with a warning) when it cannot be loaded.
function xlua.require(name)
   local ok, mod = pcall(require, name)
   if not ok then
      print(mod)
      print('warning: <' .. tostring(name) .. '> could not be loaded (is it installed?)')
      return false
   end
   return mod
end
rawset(_G, 'xrequire', xlua.require)

-- installed(name): true and the file when `name` is found on package.path or package.cpath.
function xlua.installed(name)
   if package.preload[name] or package.loaded[name] then return true, name end
   local file = package.searchpath and package.searchpath(name, package.path .. ';' .. package.cpath)
   if not file then
      local rel = name:gsub('%.', '/')
      for template in (package.path .. ';' .. package.cpath):gmatch('[^;]+') do
         local candidate = template:gsub('%?', rel)
         local f = io.open(candidate, 'r')
         if f then
            f:close()
            file = candidate
            break
         end
      end
   end
   return file ~= nil, file
end

-- clear(name): removes a global.
function xlua.clear(name)
   rawset(_G, name, nil)
   collectgarbage()
end

----------------------------------------------------------------------------------------------------
-- usage/unpack: named or positional arguments with defaults, and a help text
----------------------------------------------------------------------------------------------------

-- The help text for a function taking `...`, each {arg=, type=, help=, req=, default=}.
function xlua.usage(funcname, description, example, ...)
   local c = sys.COLORS
   local banner = string.rep('+', 69)
   local out = { banner, c.Magenta .. funcname .. c.none }
   if description then out[#out + 1] = '\n' .. description end
   out[#out + 1] = '\n' .. c.blue .. '> ' .. c.none .. 'usage:' .. c.cyan
   local defs = { ... }
   if defs[1] and defs[1].tabled then defs = defs[1].tabled end
   local function key(text)
      return text .. string.rep(' ', max(0, 40 - #text))
   end
   if defs[1] and defs[1].arg then
      out[#out + 1] = funcname .. '{'
      for _, p in ipairs(defs) do
         local k = p.req and ('    ' .. p.arg .. ' = ' .. p.type) or ('    [' .. p.arg .. ' = ' .. p.type .. ']')
         local line = key(k) .. '-- ' .. (p.help or '')
         if p.default ~= nil then
            line = line .. '  [default = ' .. tostring(p.default) .. ']'
         elseif p.defaulta then
            line = line .. '  [default == ' .. p.defaulta .. ']'
         end
         out[#out + 1] = line
      end
      out[#out + 1] = '}'
   else
      out[#out + 1] = funcname .. '('
      for _, p in ipairs(defs) do
         local k = p.req and ('    ' .. p.type) or ('    [' .. p.type .. ']')
         out[#out + 1] = key(k) .. '-- ' .. (p.help or '')
      end
      out[#out + 1] = ')'
   end
   out[#out + 1] = c.none
   if example then out[#out + 1] = c.cyan .. example .. c.none end
   out[#out + 1] = banner
   return table.concat(out, '\n')
end

local function is_tensor(x)
   local torch = rawget(_G, 'torch')
   return torch and torch.typename and torch.typename(x) ~= nil
end

-- unpack(args, funcname, description, defs...): args is the caller's {...}; either one table of
-- named arguments or positional ones. Returns the table of values (by name and by position, plus
-- `usage`) followed by the values in order.
function xlua.unpack(args, funcname, description, ...)
   local defs = { ... }
   local usage = setmetatable({}, { __tostring = function()
      local example
      if #defs > 1 then
         example = funcname .. '{' .. defs[2].arg .. '=' .. defs[2].type .. ', ' .. defs[1].arg .. '='
            .. defs[1].type .. '}\n' .. funcname .. '(' .. defs[1].type .. ', ...)'
      end
      return xlua.usage(funcname, description, example, { tabled = defs })
   end })
   local given = {}
   if #args == 1 and type(args[1]) == 'table' and #args[1] == 0 and getmetatable(args[1]) == nil
      and not is_tensor(args[1]) then
      given = args[1]
   else
      for i, def in ipairs(defs) do given[def.arg] = args[i] end
   end
   local out = {}
   for i, def in ipairs(defs) do
      local v = given[def.arg]
      if v == nil then v = def.default end
      if v == nil and def.defaulta then v = out[def.defaulta] end
      if v == nil and def.req then
         print(sys.COLORS.Red .. 'missing argument: ' .. def.arg .. sys.COLORS.none)
         print(tostring(usage))
         error((funcname or '?') .. ': missing argument ' .. def.arg, 2)
      end
      out[def.arg] = v
      out[i] = v
   end
   out.usage = usage
   return out, unpack(out, 1, #defs)
end

-- unpack_class(object, args, ...): like unpack, the named values stored in `object`.
function xlua.unpack_class(object, args, funcname, description, ...)
   local out = xlua.unpack(args, funcname, description, ...)
   for k, v in pairs(out) do
      if type(k) ~= 'number' then object[k] = v end
   end
end

rawset(_G, 'xlua', xlua)
return xlua
