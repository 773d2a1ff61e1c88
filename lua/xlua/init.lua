-- xlua: the progress bar and the small helpers Torch-era scripts take from xlua (string.split,
-- table.splice, xlua.require, xlua.unpack, envparams, clearall, log, ...), with OptionParser and
-- Profiler in files of their own. `xlua` is also a global.

local sys = require 'sys'
local paths = require 'paths'

local xlua = rawget(_G, 'xlua')
if type(xlua) ~= 'table' then xlua = {} end

-- The globals that exist before any user code, which clearall and who leave alone (under th, see
-- is_environment below).
local startup_names = {}
for k in pairs(_G) do startup_names[k] = true end
for _, k in ipairs { 'xlua', 'xprint', 'xerror', 'xrequire' } do startup_names[k] = true end

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

----------------------------------------------------------------------------------------------------
-- The global namespace: clearall, who, log
----------------------------------------------------------------------------------------------------

-- Torch's th loaded xlua at start-up, so xlua's snapshot of _G was the environment and nothing else.
-- th here loads xlua on first use, when the script may already have globals of its own; trepl's
-- _preloaded_ (the globals at start-up, plus the names trepl makes global on first use: torch,
-- paths, sys, penlight's modules) draws that line instead.
local function is_environment(k, v, libraries)
   if k == 'xlua' or k == 'xprint' or k == 'xerror' or k == 'xrequire' then return true end
   -- Libraries stay loaded: a torch class cannot be defined twice, so nn, once dropped from
   -- package.loaded, could never be required again.
   if libraries[v] then return true end
   -- and so do the helpers th's own libraries make global (torch's include)
   if type(v) == 'function' then
      local info = debug.getinfo(v, 'S')
      if info and info.source:sub(1, 12) == '@[luatorch]/' then return true end
   end
   local preloaded = rawget(_G, '_preloaded_')
   if type(preloaded) ~= 'table' then return startup_names[k] == true end
   -- trepl defines these after taking its snapshot
   if k == '_preloaded_' or k == 'who' or k == '_RESULTS' or k == '_LAST' then return true end
   -- A name trepl only reserves (torch, data, List, ...) is the environment's while it holds the
   -- library, seen to above; a user variable that happens to be called `data` is the user's.
   return preloaded[k] == true and startup_names[k] == true
end

-- The values of package.loaded, to tell a library from a user's table.
local function library_values()
   local set = {}
   for _, m in pairs(package.loaded) do
      if type(m) == 'table' or type(m) == 'userdata' then set[m] = true end
   end
   return set
end

-- clearall(): removes every global the user made. Loaded libraries and th's environment stay
-- (unlike xlua's, which also unloaded the modules loaded since, something torch classes do not
-- survive).
function xlua.clearall()
   local libraries = library_values()
   for k, v in pairs(_G) do
      if not is_environment(k, v, libraries) then rawset(_G, k, nil) end
   end
   collectgarbage()
end

-- who(): the global libraries, then the user's globals, printed with xlua.print.
function xlua.who()
   local libraries = library_values()
   local libs, user = {}, {}
   for k, v in pairs(_G) do
      if k ~= '_G' and (package.loaded[k] ~= nil or libraries[v]) then
         libs[#libs + 1] = tostring(k)
      elseif not is_environment(k, v, libraries) then
         user[k] = v
      end
   end
   table.sort(libs)
   xlua.print('')
   xlua.print('Global Libs:')
   xlua.print(libs)
   xlua.print('')
   xlua.print('Global Vars:')
   xlua.print(user)
   xlua.print('')
end

-- log(file[, append]): from now on, what io.write and print write to stdout also goes to `file`.
-- print becomes xlua.print, which writes through io.write. The originals stay in io._write and
-- _print, as xlua kept them.
do
   local log_file, stdout_write
   function xlua.log(file, append)
      if type(file) ~= 'string' or file == '' then
         error('xlua.log: bad argument #1 (file name expected, got ' .. type(file) .. ')', 2)
      end
      local dir = paths.dirname(file)
      if dir and dir ~= '' and not paths.dirp(dir) then
         local made, why = paths.mkdir(dir)
         if not made then error('xlua.log: cannot create ' .. dir .. ': ' .. tostring(why), 2) end
      end
      local f, err = io.open(file, append and 'a' or 'w')
      if not f then error('xlua.log: cannot open ' .. file .. ': ' .. tostring(err), 2) end
      if log_file then
         -- a second call moves the log rather than teeing through the previous tee
         log_file:close()
      else
         stdout_write = io.write
         io._write = stdout_write
         rawset(_G, '_print', rawget(_G, 'print'))
      end
      log_file = f
      rawset(_G, 'print', xlua.print)
      io.write = function(...)
         local result = { stdout_write(...) }
         log_file:write(...)
         log_file:flush()
         return unpack(result)
      end
   end
end

----------------------------------------------------------------------------------------------------
-- trycatch, envparams, table2string, usage_module
----------------------------------------------------------------------------------------------------

local function after_try(catch, ok, ...)
   if ok then return ... end
   if catch then return catch((...)) end
end

-- trycatch(try, catch): calls try(); if it raises an error, catch(err). Returns what the one that
-- ran last returned.
function xlua.trycatch(try, catch)
   if type(try) ~= 'function' then
      error('xlua.trycatch: bad argument #1 (function expected, got ' .. type(try) .. ')', 2)
   end
   if catch ~= nil and type(catch) ~= 'function' then
      error('xlua.trycatch: bad argument #2 (function or nil expected, got ' .. type(catch) .. ')', 2)
   end
   return after_try(catch, pcall(try))
end

-- envparams(defaults): a copy of `defaults` where each key that names an environment variable takes
-- its value, converted to the default's type (`lr=1e-3 nesterov=false th train.lua`).
function xlua.envparams(defaults)
   if type(defaults) ~= 'table' then
      error('xlua.envparams: bad argument #1 (table of defaults expected, got ' .. type(defaults) .. ')', 2)
   end
   local params = {}
   for k, v in pairs(defaults) do
      params[k] = v
      local text = type(k) == 'string' and os.getenv(k) or nil
      if text ~= nil then
         if type(v) == 'number' then
            local n = tonumber(text)
            if n == nil then
               error(string.format('xlua.envparams: environment variable %s=%q is not a number', k, text), 2)
            end
            params[k] = n
         elseif type(v) == 'boolean' then
            if text == 'true' or text == 'True' then
               params[k] = true
            elseif text == 'false' or text == 'False' then
               params[k] = false
            else
               error(string.format('xlua.envparams: environment variable %s=%q is not a boolean '
                  .. '(true, True, false or False)', k, text), 2)
            end
         else
            params[k] = text
         end
      end
   end
   return params
end

do
   local table2string

   local function value_string(v, open)
      if type(v) == 'string' then
         v = v:gsub('\n', '\\n')
         -- single quotes spare the escapes when the only quotes inside are double ones
         if v:gsub('[^\'"]', ''):match('^"+$') then return "'" .. v .. "'" end
         return '"' .. v:gsub('"', '\\"') .. '"'
      elseif type(v) == 'table' then
         if open[v] then return tostring(v) end -- a cycle would never end
         return table2string(v, false, open)
      end
      return tostring(v)
   end

   local function key_string(k, open)
      if type(k) == 'string' and k:match('^[_%a][_%w]*$') then return k end
      return '[' .. value_string(k, open) .. ']'
   end

   -- pairs() has no order; numbers first, then the rest by name, so the text is reproducible
   local function key_before(a, b)
      local ta, tb = type(a), type(b)
      if ta ~= tb then
         if ta == 'number' then return true end
         if tb == 'number' then return false end
         return ta < tb
      end
      if ta == 'number' or ta == 'string' then return a < b end
      return tostring(a) < tostring(b)
   end

   function table2string(tbl, newline, open)
      open[tbl] = true
      local parts, listed = {}, {}
      for i, v in ipairs(tbl) do
         parts[#parts + 1] = value_string(v, open)
         listed[i] = true
      end
      local keys = {}
      for k in pairs(tbl) do
         if not listed[k] then keys[#keys + 1] = k end
      end
      table.sort(keys, key_before)
      local sep = newline and ' : ' or '='
      for _, k in ipairs(keys) do
         parts[#parts + 1] = key_string(k, open) .. sep .. value_string(tbl[k], open)
      end
      open[tbl] = nil
      if newline then return '{\n   ' .. table.concat(parts, '\n   ') .. '\n}' end
      return '{' .. table.concat(parts, ',') .. '}'
   end

   -- table2string(t[, newline]): t as Lua-like text, {1,2,key="v"}; with newline, one entry a line
   -- and `key : value`. Nested tables are written on one line.
   function xlua.table2string(tbl, newline)
      if type(tbl) ~= 'table' then
         error('xlua.table2string: bad argument #1 (table expected, got ' .. type(tbl) .. ')', 2)
      end
      return table2string(tbl, newline, {})
   end
end

-- usage_module(module, name[, description]): the banner that tostring(module) shows from now on;
-- also returned.
function xlua.usage_module(module, name, description)
   if type(module) ~= 'table' then
      error('xlua.usage_module: bad argument #1 (table expected, got ' .. type(module) .. ')', 2)
   end
   if type(name) ~= 'string' then
      error('xlua.usage_module: bad argument #2 (string expected, got ' .. type(name) .. ')', 2)
   end
   local c = sys.COLORS
   local text = c.magenta .. string.rep('+', 69) .. '\n' .. 'PACKAGE:\n' .. name .. '\n'
   if description then text = text .. '\nDESC:\n' .. tostring(description) .. '\n' end
   text = text .. string.rep('+', 70) .. c.none
   local mt = getmetatable(module)
   if mt == nil then
      mt = {}
      setmetatable(module, mt)
   end
   mt.__tostring = function() return text end
   return text
end

-- The classes in files of their own find xlua through the global, as they install themselves in it.
rawset(_G, 'xlua', xlua)
xlua.OptionParser = require 'xlua.OptionParser'
xlua.Profiler = require 'xlua.Profiler'

return xlua
