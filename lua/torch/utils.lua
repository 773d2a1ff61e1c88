-- Smaller torch.* utilities: torch.packageLuaPath, torch.include and the global include, and the
-- luaT helpers torch.isequal, torch.version, torch.setmetatable, torch.getenv, torch.setenv,
-- torch.typename2id and torch.id.

local torch = require 'torch'
local libpaths = require 'libpaths'

-- Files compiled into `th` are named like this (see src/runtime/embedded.rs).
local EMBEDDED = '[luatorch]'

local function dirname(path)
   return path:match('^(.*)/[^/]*$') or '.'
end

-- The directory holding package `name`'s Lua files, found the way `require` finds the package:
-- our own packages (compiled into th) first, then package.path. With no name: the directory that
-- holds the torch package's directory. nil when the package is not found.
function torch.packageLuaPath(name)
   if name == nil then
      local dir = torch.packageLuaPath('torch')
      return dir and dirname(dir)
   end
   if type(name) ~= 'string' then
      error('torch.packageLuaPath: bad argument #1 (package name expected, got ' .. type(name) .. ')', 2)
   end
   local rel = name:gsub('%.', '/')
   if libpaths.loadembedded(rel .. '/init.lua') then return EMBEDDED .. '/' .. rel end
   if libpaths.loadembedded(rel .. '.lua') then return dirname(EMBEDDED .. '/' .. rel .. '.lua') end
   local found = package.searchpath(name, package.path)
   return found and dirname(found)
end

-- Runs `file` from package `pkg`'s directory (Torch packages split themselves into files this
-- way: torch.include('nn', 'Linear.lua')).
function torch.include(pkg, file)
   if type(pkg) ~= 'string' or type(file) ~= 'string' then
      error('torch.include: expected (package name, file name), got (' .. type(pkg) .. ', ' .. type(file) .. ')', 2)
   end
   local dir = torch.packageLuaPath(pkg)
   if dir == nil then
      error("torch.include: package '" .. pkg .. "' not found in package.path", 2)
   end
   local path = dir .. '/' .. file
   if dir:sub(1, #EMBEDDED) == EMBEDDED then
      local chunk = libpaths.loadembedded(path)
      if chunk == nil then
         error("torch.include: package '" .. pkg .. "' has no file " .. file, 2)
      end
      return chunk()
   end
   return dofile(path)
end

-- include(file): runs `file` relative to the calling file, as Torch's global include does.
if rawget(_G, 'include') == nil then
   rawset(_G, 'include', function(file, depth)
      local paths = require 'paths'
      -- Not a tail call: paths.dofile finds the caller by counting stack levels through this one.
      local results = { paths.dofile(file, 3 + (depth or 0)) }
      return unpack(results)
   end)
end

-- Whether two tables or torch objects are the same object.
function torch.isequal(a, b)
   local ta, tb = type(a), type(b)
   if (ta == 'table' or ta == 'userdata') and (tb == 'table' or tb == 'userdata') then
      return torch.pointer(a) == torch.pointer(b)
   end
   return false
end

-- The class's __version field (1 unless a class sets another), nil for non-torch values.
function torch.version(obj)
   local name = torch.typename(obj)
   local class = name and torch.getmetatable(name)
   return class and rawget(class, '__version')
end

-- Gives table `t` the class `name` (an object of that class, without calling __init).
function torch.setmetatable(t, name)
   if type(t) ~= 'table' then
      error('torch.setmetatable: bad argument #1 (table expected, got ' .. type(t) .. ')', 2)
   end
   local class = torch.getmetatable(name)
   if class == nil then
      error('torch.setmetatable: unknown Torch class <' .. tostring(name) .. '>', 2)
   end
   return setmetatable(t, class)
end

function torch.getenv(obj)
   return debug.getfenv(obj)
end

function torch.setenv(obj, env)
   if type(env) ~= 'table' then
      error('torch.setenv: bad argument #2 (table expected, got ' .. type(env) .. ')', 2)
   end
   return debug.setfenv(obj, env)
end

-- A value identifying a class (luaT gave a light userdata; the class table serves the same
-- purpose: one per class, comparable with ==). nil for an unknown name or a non-torch value.
function torch.typename2id(name)
   return type(name) == 'string' and torch.getmetatable(name) or nil
end

function torch.id(obj)
   local name = torch.typename(obj)
   return name and torch.getmetatable(name)
end

-- luaT's error-handler refresh; errors need no setup here.
function torch.updateerrorhandlers() end

return torch
