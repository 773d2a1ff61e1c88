-- paths: file names and directories, as Torch's `paths` package has them. The native half
-- (libpaths, src/runtime/paths.rs) does the path arithmetic and the system calls; this file adds
-- the iterators, the caller-relative helpers and the platform fields. `paths` is also a global.

local lib = require 'libpaths'

local paths = rawget(_G, 'paths')
if type(paths) ~= 'table' then paths = {} end
for k, v in pairs(lib) do
   if k ~= 'loadembedded' then paths[k] = v end
end
local loadembedded = lib.loadembedded

local sysname = paths.uname()

function paths.is_win() return sysname:match('Windows') ~= nil end
function paths.is_mac() return sysname:match('Darwin') ~= nil end

paths.home = os.getenv('HOME') or '.'

-- Where a luarocks-style tree around the `th` binary keeps things (<prefix>/bin/th).
do
   local bin = paths.execdir()
   local prefix = bin and paths.dirname(bin) or '/usr/local'
   paths.install_prefix = prefix
   paths.install_bin = prefix .. '/bin'
   paths.install_lib = prefix .. '/lib'
   paths.install_share = prefix .. '/share'
   paths.install_include = prefix .. '/include'
   paths.install_man = prefix .. '/share/man'
   paths.install_cmake = prefix .. '/share/cmake/torch'
   paths.install_lua_path = prefix .. '/share/lua/5.1'
   paths.install_lua_cpath = prefix .. '/lib/lua/5.1'
end

local checkstring = require('luatorch.check').string

-- Iterates over the entries of directory `d` (`.` and `..` included), optionally only those for
-- which `filter(name)` is true, or that match the Lua pattern `filter`. Nothing when `d` is not a
-- directory.
function paths.files(d, filter)
   d = checkstring('paths.files', 1, d)
   local list = paths.dir(d)
   if type(filter) == 'string' then
      local pattern = filter
      filter = function(name) return name:find(pattern) ~= nil end
   elseif filter ~= nil and type(filter) ~= 'function' then
      error('paths.files: bad argument #2 (function or string pattern expected, got ' .. type(filter) .. ')', 2)
   end
   local i = 0
   return function()
      while list do
         i = i + 1
         local name = list[i]
         if name == nil then return nil end
         if not filter or filter(name) then return name end
      end
   end
end

-- Subdirectories of `d`, without `.` and `..`.
function paths.iterdirs(d)
   d = checkstring('paths.iterdirs', 1, d)
   return paths.files(d, function(name)
      return name ~= '.' and name ~= '..' and paths.dirp(d .. '/' .. name)
   end)
end

-- Files (anything but directories) in `d`.
function paths.iterfiles(d)
   d = checkstring('paths.iterfiles', 1, d)
   return paths.files(d, function(name)
      return name ~= '.' and name ~= '..' and paths.filep(d .. '/' .. name)
   end)
end

local EMBEDDED = '[luatorch]/'

-- The file of the function `depth` levels up (2: the caller of thisfile), as an absolute path. With
-- `arg`, that name next to it instead. Files compiled into `th` are named '[luatorch]/...'.
function paths.thisfile(arg, depth)
   local info = debug.getinfo((depth or 2), 'S')
   local s = info and info.source
   if type(s) ~= 'string' then
      s = nil
   elseif s:sub(1, 1) == '@' then
      s = s:sub(2)
      if s:sub(1, #EMBEDDED) ~= EMBEDDED then s = paths.concat(s) end
   else
      s = nil
   end
   if type(arg) == 'string' then
      if s then
         if s:sub(1, #EMBEDDED) == EMBEDDED then
            if arg:sub(1, 1) ~= '/' then s = paths.dirname(s) .. '/' .. arg else s = arg end
         else
            s = paths.concat(paths.dirname(s), arg)
         end
      else
         s = arg
      end
   end
   return s
end

-- dofile(f) with `f` relative to the calling file's directory.
function paths.dofile(f, depth)
   f = checkstring('paths.dofile', 1, f)
   local s = paths.thisfile(nil, 1 + (depth or 2))
   if s and s ~= '' and f:sub(1, 1) ~= '/' then
      if s:sub(1, #EMBEDDED) == EMBEDDED then
         local target = paths.dirname(s) .. '/' .. f
         local chunk = loadembedded(target)
         if chunk then return chunk() end
         return dofile(f)
      end
      f = paths.concat(paths.dirname(s), f)
   end
   return dofile(f)
end

-- Torch's paths.require loads a C library from package.cpath; here every module goes through
-- `require`, which finds native modules compiled into th first.
function paths.require(name)
   name = checkstring('paths.require', 1, name)
   return require(name)
end

rawset(_G, 'paths', paths)
return paths
