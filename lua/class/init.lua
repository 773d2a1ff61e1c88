-- class: a small object system. A class is a metatable holding its methods; a subclass's
-- metatable has its parent's as metatable, so lookups fall through to the parent.
--
--   local class = require 'class'
--   local A = class('A')            -- or class.new('A')
--   function A:__init(x) self.x = x end
--   local B = class('B', 'A')       -- B inherits from A
--   local b = B(1)                  -- or B.new(1)
--   class.type(b) --> 'B';  class.istype(b, 'A') --> true
--
-- Nothing is added to the global namespace. Loading this package makes argcheck use
-- class.istype to check types.

local argcheck = require 'argcheck'
local argcheckenv = require 'argcheck.env'
local doc = require 'argcheck.doc'

local ffi
do
   local ok, mod = pcall(require, 'ffi')
   if ok then ffi = mod end
end

doc[[
Object Classes for Lua
----------------------

A simple object system: each class is a metatable holding its methods, and inheritance chains
metatables. Type checks are cheap.

]]

local class = {}

local registry = {}   -- class name -> metatable
local descendants = {} -- class name -> set of the names of that class and of all classes below it
local ctypes = {}     -- ffi ctype id -> class name

-- What a class call returns: a table reading and writing through to the metatable, and creating
-- an instance when called.
local function constructor_table(mt)
   return setmetatable({}, {
      __index = mt,
      __newindex = mt,
      __metatable = mt,
      __call = function(self, ...)
         return self.new(...)
      end,
   })
end

class.new = argcheck{
   doc = [[
### `class.new(@ARGP)`

Creates the class `name`, inheriting from the class `parentname` when given, and returns its
constructor table (the table in which to define methods; calling it creates an instance).
With `ctype`, ffi objects of that ctype are considered instances of the class. The class
metatable of the parent is returned as a second value.
`class(...)` is the same as `class.new(...)`.

]],
   { name = 'name', type = 'string', doc = 'class name' },
   { name = 'parentname', type = 'string', opt = true, doc = 'parent class name' },
   { name = 'ctype', type = 'cdata', opt = true, doc = 'ctype which should be considered as of class name' },
   call = function(name, parentname, ctype)
      assert(not registry[name], string.format('class <%s> already exists', name))
      if ctype then
         local id = tonumber(ctype)
         assert(id, 'invalid ffi ctype')
         assert(not ctypes[id], string.format('ctype <%s> already considered as <%s>', tostring(ctype), tostring(ctypes[id])))
         ctypes[id] = name
      end

      local mt = { __typename = name }
      mt.__index = mt
      mt.__factory = function()
         return setmetatable({}, mt)
      end
      mt.__init = function() end
      mt.new = function(...)
         local obj = mt.__factory()
         obj:__init(...)
         return obj
      end

      registry[name] = mt
      descendants[name] = { [name] = true }

      if not parentname then
         return constructor_table(mt)
      end
      local parent = registry[parentname]
      assert(parent, string.format('parent class <%s> does not exist', parentname))
      setmetatable(mt, parent)
      -- every ancestor now counts `name` among its kind
      local ancestor = parent
      while ancestor do
         descendants[ancestor.__typename][name] = true
         ancestor = getmetatable(ancestor)
      end
      return constructor_table(mt), parent
   end
}

class.factory = argcheck{
   doc = [[
### `class.factory(name)`

Returns a new, empty instance of the class `name`; its `__init` is not called.

]],
   { name = 'name', type = 'string' },
   call = function(name)
      local mt = registry[name]
      assert(mt, string.format('unknown class <%s>', name))
      return mt.__factory()
   end
}

class.metatable = argcheck{
   doc = [[
### `class.metatable(name)`

Returns the metatable (the table holding the methods) of the class `name`, or nil.

]],
   { name = 'name', type = 'string' },
   call = function(name)
      return registry[name]
   end
}

-- the class name an object declares (through its metatable, or its ctype), or nil
local function declared_name(obj, kind)
   if kind == 'cdata' then
      return ffi and ctypes[tonumber(ffi.typeof(obj))]
   elseif kind == 'table' or kind == 'userdata' then
      local mt = getmetatable(obj)
      if type(mt) == 'table' then
         return rawget(mt, '__typename')
      end
   end
   return nil
end

doc[[
### `class.type(obj)`

The class name of `obj` if it declares one, otherwise what Lua's `type()` says.

]]

function class.type(obj)
   local kind = type(obj)
   return declared_name(obj, kind) or kind
end

doc[[
### `class.istype(obj, name)`

Whether `obj` is an instance of the class `name` or of a class inheriting from it.

]]

function class.istype(obj, typename)
   local kind = type(obj)
   local name = declared_name(obj, kind)
   if not name then
      return kind == typename
   end
   local family = rawget(descendants, typename)
   if family then
      return rawget(family, name) or false
   end
   -- a type this package did not create: compare the names only
   return name == typename
end

-- argcheck checks types through class.istype from now on
argcheckenv.istype = class.istype

setmetatable(class, {
   __call = function(self, ...)
      return self.new(...)
   end
})

return class
