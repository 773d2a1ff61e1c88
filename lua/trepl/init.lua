-- The environment `th` gives every script and the REPL, as trepl did: torch, paths, sys and xlua as
-- globals, a `print` that shows tables and tensors readably, and the helpers Torch-era scripts use
-- (import, who, setprintlevel, noColors, relative require, penlight modules on demand).

local trepl = {}

-- Under trepl, torch was loaded before any script ran, and it gave LuaJIT these Lua 5.2 names;
-- th loads torch on first use, so they are set here for every script.
if table.unpack == nil then table.unpack = unpack end
if string.gfind == nil then string.gfind = string.gmatch end

local colors = require 'trepl.colors'
local col = require 'trepl.colorize'


function noColors()
   for k in pairs(colors) do colors[k] = '' end
end

if not require('libsys').isatty(1) or os.getenv('TERM') == 'dumb' then noColors() end

local function typename(x)
   local torch = package.loaded.torch
   if type(torch) == 'table' and torch.typename then return torch.typename(x) end
end

-- 'DoubleTensor - size: 3x4', 'FloatStorage - size: 5', 'DoubleTensor - empty'
local function sizestr(x)
   local tn = typename(x)
   if not tn then return nil end
   local short = tn:match('^torch%.(.+)$') or tn
   if tn:find('Storage$') then return short .. ' - size: ' .. x:size() end
   if not tn:find('Tensor$') then return nil end
   if x:nDimension() == 0 then return short .. ' - empty' end
   local dims = {}
   for i = 1, x:nDimension() do dims[i] = x:size(i) end
   return short .. ' - size: ' .. table.concat(dims, 'x')
end
trepl.sizestr = sizestr

local function colorize(v, nested)
   local t = type(v)
   if v == nil then return col.Black('nil')
   elseif t == 'number' then return col.cyan(tostring(v))
   elseif t == 'boolean' then return col.blue(tostring(v))
   elseif t == 'string' then
      if nested then return col.Black('"') .. col.green(v) .. col.Black('"') end
      return v
   elseif t == 'function' then return col.magenta(tostring(v))
   elseif t == 'userdata' or t == 'cdata' then return col.red(sizestr(v) or tostring(v))
   elseif t == 'table' then return col.green(tostring(v))
   end
   return tostring(v)
end

local print_depth = 5
local print_old = rawget(_G, 'print_old') or print
print_old = print_old
_G.print_old = print_old

local function has_tostring(v)
   local mt = getmetatable(v)
   return type(mt) == 'table' and mt.__tostring ~= nil
end

-- A table laid out as trepl does: '{', one 'key : value' line per entry indented by two, a nested
-- table under its key line four columns deeper per level, and '{...}' for an empty nested table or
-- one past the depth limit (the limit also ends cycles). Nested objects are opened like any table.
local function write_table(out, obj, depth)
   local pad = string.rep(' ', depth * 4)
   if next(obj) == nil then
      out[#out + 1] = pad .. '{}\n'
      return
   end
   out[#out + 1] = pad .. '{\n'
   for k, v in pairs(obj) do
      local key = pad .. '  ' .. tostring(k) .. ' : '
      if type(v) == 'table' then
         if depth >= print_depth - 1 or next(v) == nil then
            out[#out + 1] = key .. '{...}\n'
         else
            out[#out + 1] = key .. '\n'
            write_table(out, v, depth + 1)
         end
      else
         out[#out + 1] = key .. colorize(v, true) .. '\n'
      end
   end
   out[#out + 1] = pad .. '}\n'
end

-- The text `print` writes for its arguments, as trepl lays it out: a plain value (string, number,
-- boolean, nil, function) is followed by a tab, and the line ends after the last argument; a
-- tensor, storage or other object with a __tostring writes its text and a newline; a plain table
-- is laid out key by key. No arguments, no text.
function trepl.format(...)
   local n = select('#', ...)
   local out = {}
   for i = 1, n do
      local v = select(i, ...)
      local t = type(v)
      if t == 'table' and not has_tostring(v) then
         write_table(out, v, 0)
      elseif t == 'userdata' or t == 'cdata' or t == 'table' then
         out[#out + 1] = tostring(v) .. '\n'
      else
         out[#out + 1] = colorize(v) .. '\t'
         if i == n then out[#out + 1] = '\n' end
      end
   end
   return table.concat(out)
end

function print_new(...)
   io.write(trepl.format(...))
   io.flush()
end

function setprintlevel(n)
   if type(n) ~= 'number' or n < 0 then error('setprintlevel: expected a number >= 0', 2) end
   print_depth = math.floor(n)
   print = print_depth == 0 and print_old or print_new
end
setprintlevel(5)

-- import 'torch' copies a package's fields into the globals (forced: overwrite existing ones).
function import(package, forced)
   local ret = require(package)
   local symbols = type(rawget(_G, package)) == 'table' and rawget(_G, package) or ret
   if type(symbols) ~= 'table' then return end
   for k, v in pairs(symbols) do
      if rawget(_G, k) == nil or forced then rawset(_G, k, v) end
   end
end

-- require './x' resolves relative to the calling file; a plain name that is not found is retried
-- as './name'.
local plain_require = require
function require(name)
   if type(name) ~= 'string' then return plain_require(name) end
   if name:sub(1, 1) ~= '.' then
      local ok, res = pcall(plain_require, name)
      if ok then return res end
      local ok2, res2 = pcall(plain_require, './' .. name)
      if ok2 then return res2 end
      error(res, 2)
   end
   local paths = plain_require 'paths'
   local source = debug.getinfo(2, 'S').source
   local dir = '.'
   if source:sub(1, 1) == '@' and paths.filep(source:sub(2)) then dir = paths.dirname(source:sub(2)) end
   local base = paths.concat(dir, name)
   local function load_t7(p) return plain_require('torch').load(p) end
   for _, try in ipairs {
      { base .. '.lua', dofile }, { base, function(p)
         if p:find('%.th$') or p:find('%.t7$') then return load_t7(p) end
         return dofile(p)
      end },
      { base .. '.th', load_t7 }, { base .. '.t7', load_t7 },
      { base .. '/init.lua', dofile },
   } do
      if paths.filep(try[1]) then return try[2](try[1]) end
   end
   local so = base .. '.so'
   if paths.filep(so) then
      local f = assert(package.loadlib(so, 'luaopen_' .. paths.basename(name)))
      return f()
   end
   error("module '" .. name .. "' not found (looked for " .. base .. ".lua, .th, .t7, .so and /init.lua)", 2)
end

-- torch, paths, sys and xlua are globals as under trepl, but each is loaded on first use so that
-- `th` starts about as fast as a bare LuaJIT. Penlight's modules (lapp, tablex, ...) become globals
-- on first use too, when penlight is installed.
local lazy = { torch = 'torch', paths = 'paths', sys = 'sys', xlua = 'xlua' }
for _, m in ipairs { 'app', 'array2d', 'class', 'comprehension', 'compat', 'config', 'data', 'Date',
   'dir', 'file', 'func', 'input', 'lapp', 'lexer', 'List', 'luabalanced', 'Map', 'MultiMap', 'operator',
   'OrderedMap', 'path', 'permute', 'pretty', 'seq', 'Set', 'sip', 'stringio', 'stringx',
   'tablex', 'template', 'test', 'text', 'types', 'utils', 'xml' } do
   lazy[m] = 'pl.' .. m
end

local function load_lazy(t, k)
   local module = lazy[k]
   if module == nil then return nil end
   lazy[k] = nil
   local ok, m = pcall(plain_require, module)
   if ok and m ~= nil then
      if rawget(t, k) == nil then rawset(t, k, m) end
      return rawget(t, k)
   end
end

local G_mt = getmetatable(_G) or {}
local previous_index = G_mt.__index
G_mt.__index = function(t, k)
   local v = load_lazy(t, k)
   if v ~= nil then return v end
   if type(previous_index) == 'function' then return previous_index(t, k) end
   if type(previous_index) == 'table' then return previous_index[k] end
end
setmetatable(_G, G_mt)

-- Code that replaces _G's metatable (strict modes) would lose the lazy globals: load the Torch
-- ones first.
local function load_torch_globals()
   for _, k in ipairs { 'torch', 'paths', 'sys', 'xlua' } do
      if lazy[k] then load_lazy(_G, k) end
   end
end
local raw_setmetatable, raw_debug_setmetatable = setmetatable, debug.setmetatable
function setmetatable(t, mt)
   if t == _G then load_torch_globals() end
   return raw_setmetatable(t, mt)
end
function debug.setmetatable(t, mt)
   if t == _G then load_torch_globals() end
   return raw_debug_setmetatable(t, mt)
end

-- xlua's string helpers are used by code that never names xlua (torch-ipc's trees).
if string.split == nil then
   string.split = function(...)
      plain_require 'xlua'
      return string.split(...)
   end
end

-- who() lists the globals created since start-up; who(true) adds the system ones.
local preloaded = {}
for k in pairs(_G) do preloaded[k] = true end
for k in pairs(lazy) do preloaded[k] = true end
_G._preloaded_ = preloaded

local function describe(v)
   local t = type(v)
   if t == 'userdata' then return sizestr(v) or tostring(v)
   elseif t == 'table' then
      local tn = typename(v)
      return tn or ('table - size: ' .. #v)
   elseif t == 'string' then
      local s = v:gsub('\n', '\\n')
      if #s > 40 then s = s:sub(1, 40) .. '...' end
      return 'string : "' .. s .. '"'
   end
   return tostring(v)
end

function who(system)
   local names = {}
   local width = 0
   for k in pairs(_G) do
      if system or not preloaded[k] then
         names[#names + 1] = tostring(k)
         width = math.max(width, #tostring(k))
      end
   end
   table.sort(names)
   print_old('== ' .. (system and 'All' or 'User') .. ' Variables ==')
   for _, k in ipairs(names) do
      local name = '[' .. k .. ']'
      print_old(name .. string.rep(' ', width + 2 - #name + 2) .. ' = ' .. describe(rawget(_G, k)))
   end
   print_old('==')
end

_RESULTS = {}
_LAST = ''

trepl.colors = colors
trepl.colorize = col
trepl.noColors = noColors
package.loaded.trepl = trepl
return trepl
