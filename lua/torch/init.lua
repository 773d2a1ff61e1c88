-- The `torch` package: the class system (luaT's, in Lua), the tensor and storage classes of the
-- seven Torch types over the native `libtorch`, and the `torch.*` functions.

-- As Torch7's did, `require 'torch'` makes `paths` a global too, in every Lua state: a threads or
-- ipc worker's code (dcgan.torch's data loader, for one) calls paths.dofile without requiring it.
require 'paths'
local C = require 'libtorch'

-- Torch gave LuaJIT these Lua 5.2 names, and Torch-era code (nn's tests, for one) uses them.
if table.unpack == nil then table.unpack = unpack end
if string.gfind == nil then string.gfind = string.gmatch end

local torch = rawget(_G, 'torch')
if type(torch) ~= 'table' then torch = {} end
rawset(_G, 'torch', torch)
package.loaded.torch = torch
torch._C = C

---------------------------------------------------------------------------------------------------
-- Class registry (what luaT keeps in the Lua registry): type name -> class table (the metatable of
-- table-based instances; the method table of tensors and storages).

local classes = {}
local constructors = {}
torch._classes = classes

local getmetatable, setmetatable, rawget, rawset, type = getmetatable, setmetatable, rawget, rawset, type
local debug_getmetatable = debug.getmetatable

-- The class name of a torch object (tensor, storage or torch.class instance), nil otherwise.
function torch.typename(obj)
   local mt = debug_getmetatable(obj)
   if type(mt) == 'table' then
      local name = rawget(mt, '__typename')
      if type(name) == 'string' then return name end
   end
   return nil
end
local typename = torch.typename

function torch.type(obj)
   return typename(obj) or type(obj)
end

function torch.getmetatable(name)
   return classes[name]
end

function torch.getconstructortable(name)
   return constructors[name]
end

function torch.isTensor(obj)
   local name = typename(obj)
   return name ~= nil and name:find('^torch%.[%a]*Tensor$') ~= nil
end

function torch.isStorage(obj)
   local name = typename(obj)
   return name ~= nil and name:find('^torch%.[%a]*Storage$') ~= nil
end

-- Does `name` satisfy the type spec? A spec that a match reproduces exactly is a plain name and
-- must be the whole name ('torch.Long' is not 'torch.LongTensor'); any other match means the spec
-- was a pattern ('.*Long', 'torch.*Tensor'), and a match anywhere counts.
local function type_matches(name, spec)
   local found = name:match(spec)
   if found == nil then return false end
   return found == name or found ~= spec
end

-- Walks the class and its parents. `spec` is a type name, a Lua pattern over type names, or
-- a class, or something whose metatable names the type (a constructor table, an instance).
function torch.isTypeOf(obj, spec)
   if type(spec) ~= 'string' then
      -- A class table names itself; a constructor table or an instance, through its metatable.
      local own = type(spec) == 'table' and rawget(spec, '__typename') or nil
      local mt = own == nil and getmetatable(spec) or nil
      spec = own or (type(mt) == 'table' and rawget(mt, '__typename') or nil)
      if type(spec) ~= 'string' then
         error('type must be provided as [regexp] string, or factory', 2)
      end
   end
   local mt = debug_getmetatable(obj)
   while type(mt) == 'table' do
      local name = rawget(mt, '__typename')
      if type(name) == 'string' and type_matches(name, spec) then return true end
      local parent = getmetatable(mt)
      mt = parent and rawget(parent, '__index')
   end
   return false
end

-- The address that identifies an object (storages by their memory, others by themselves).
function torch.pointer(obj)
   return C.pointer(obj)
end

-- A function returning an empty instance of the class: what deserialization calls.
function torch.factory(name)
   local class = classes[name]
   if class == nil then return nil end
   return rawget(class, '__factory')
end

---------------------------------------------------------------------------------------------------
-- Table-based classes: torch.class(name [, parentName] [, module])

local operator_names = { 'add', 'sub', 'mul', 'div', 'mod', 'pow', 'unm', 'concat', 'len', 'eq', 'lt',
   'le', 'call' }

local function install_constructor(name, ctor, module)
   local pkg, short = name:match('^(.*)%.([^.]+)$')
   if module ~= nil then
      short = short or name
   elseif pkg then
      module = rawget(_G, pkg) or package.loaded[pkg]
      if module == nil then
         module = {}
         rawset(_G, pkg, module)
      end
   else
      module, short = _G, name
   end
   rawset(module, short, ctor)
end

-- The table users call to construct (`torch.FloatTensor(...)`, `nn.Linear(...)`): it reads and
-- writes through to the class, and its protected metatable is the class (as luaT's).
local function pass(...) return ... end

local function constructor_table(name, class, new)
   local ctor = setmetatable({}, {
      __index = class,
      __newindex = class,
      -- Not a tail call: the constructor's frame stays on the stack while `new` runs, as luaT's C
      -- __call's did, so debug.getinfo(level) sees Torch7's depths (nngraph finds where a node
      -- was declared by it).
      __call = function(_, ...) return pass(new(...)) end,
      __tostring = function() return name end,
      __metatable = class,
   })
   constructors[name] = ctor
   return ctor
end

-- luaT kept each class in the Lua registry both ways, and Lua code reads it there (torchnet's
-- torch.isclass is `debug.getregistry()[obj] ~= nil`): name -> class and class -> name.
local registry = debug.getregistry()
local function register_class(name, class)
   classes[name] = class
   registry[name], registry[class] = class, name
end

-- As luaT's: asked again for a class that exists, it returns it, and only refuses to give it a
-- second parent, constructor or factory.
local function existing_metatable(name, class, parentName, constructor, factory)
   local what = (parentName ~= nil and getmetatable(class) ~= nil and 'a parent class')
      or (constructor ~= nil and 'a constructor') or (factory ~= nil and 'a factory')
   if what then
      error('torch.newmetatable: class ' .. name .. ' has been already assigned ' .. what, 3)
   end
   if parentName ~= nil then
      local parent = classes[parentName]
      if parent == nil then
         error('torch.newmetatable: bad argument #2 (invalid parent class name ' .. tostring(parentName) .. ')', 3)
      end
      setmetatable(class, { __index = parent })
   end
   return class, parentName and classes[parentName], constructors[name]
end

function torch.newmetatable(name, parentName, constructor, destructor, factory, module)
   if type(name) ~= 'string' then error('torch.newmetatable: class name must be a string', 2) end
   if classes[name] then
      return existing_metatable(name, classes[name], parentName, constructor, factory)
   end
   local parent
   if parentName ~= nil then
      parent = classes[parentName]
      if parent == nil then
         error('torch.class: parent class <' .. tostring(parentName) .. '> does not exist', 3)
      end
   end
   local class = { __typename = name, __version = 1 }
   class.__index = class
   if parent then setmetatable(class, { __index = parent }) end
   -- luaT's operator forwarding: `__add__` etc. defined anywhere in the class chain.
   class.__tostring = function(self)
      local f = self.__tostring__
      if f then return f(self) end
      return name .. ': ' .. string.format('%p', self)
   end
   for _, op in ipairs(operator_names) do
      local field = '__' .. op .. '__'
      class['__' .. op] = function(a, ...)
         local target = a
         if typename(a) == nil or a[field] == nil then target = ... end
         local f = type(target) == 'table' and target[field]
         if not f then
            -- luaT's default __eq compared identity: two distinct modules are just unequal.
            if op == 'eq' then return rawequal(a, ...) end
            error('attempt to perform ' .. op .. ' on a ' .. name .. ' value without ' .. field, 2)
         end
         return f(a, ...)
      end
   end
   -- `module(input)` keeps this frame on the stack while __call__ runs, as the C frame of luaT's
   -- __call did (see constructor_table).
   class.__call = function(a, ...)
      local f = a.__call__
      if not f then error('attempt to call a ' .. name .. ' value without __call__', 2) end
      return pass(f(a, ...))
   end
   class.__factory = factory or function() return setmetatable({}, class) end
   local new = constructor or function(...)
      local self = class.__factory()
      local init = self.__init
      if init then init(self, ...) end
      return self
   end
   class.new = new
   register_class(name, class)
   local ctor = constructor_table(name, class, new)
   install_constructor(name, ctor, module)
   return class, parent, ctor
end

-- luaT's torch.metatype(name, mt [, ctype]): a metatable made elsewhere (tds's userdata's) becomes
-- the class `name`, which torch.getmetatable, torch.factory and serialization then find. The ctype
-- of an FFI type is accepted and not used: torch.typename knows tables and userdata.
function torch.metatype(name, mt, ctype)
   if type(name) ~= 'string' then error('torch.metatype: class name (string) expected', 2) end
   if type(mt) ~= 'table' then error('torch.metatype: metatable (table) expected', 2) end
   if rawget(mt, '__typename') == nil then rawset(mt, '__typename', name) end
   register_class(name, mt)
   return mt
end

function torch.class(name, parentName, module)
   if type(parentName) == 'table' and module == nil then
      module, parentName = parentName, nil
   end
   if classes[name] then error('torch.class: attempt to redefine Torch class <' .. name .. '>', 2) end
   local class, parent = torch.newmetatable(name, parentName, nil, nil, nil, module)
   return class, parent
end

---------------------------------------------------------------------------------------------------
-- Tensor and storage classes.

torch.types = C.types
local default_type = 'torch.DoubleTensor'

-- The operators of a tensor class call its `__add__`, ...; a script may also define the metamethod
-- itself on the class (`function torch.HalfTensor:__sub(b)`, as Torch7's own tests do), which
-- then wins, as it did when Torch's class table was the metatable.
local function tensor_operators(class)
   local ops = {}
   for _, event in ipairs { 'add', 'sub', 'mul', 'div', 'mod', 'pow', 'unm' } do
      local own, native = '__' .. event, '__' .. event .. '__'
      ops[own] = function(a, b) return (rawget(class, own) or class[native])(a, b) end
   end
   return ops
end

-- The tensor and storage classes of element type T over the native module N (libtorch here;
-- libcutorch makes the device classes with it): class tables holding N's methods, the userdata
-- metatables, and the registry entries. Returns the constructor tables of the two classes.
local function native_classes(N, T, tname, sname)
   local tclass = { __typename = tname, __version = 1 }
   for k, f in pairs(N.tensorMethods) do tclass[k] = f end
   local sclass = { __typename = sname, __version = 1 }
   for k, f in pairs(N.storageMethods) do sclass[k] = f end

   local function new_tensor(...) return N.newTensor(T, ...) end
   local function new_storage(...) return N.newStorage(T, ...) end
   tclass.new, sclass.new = new_tensor, new_storage
   tclass.__factory, sclass.__factory = new_tensor, new_storage
   tclass.__tostring__ = N.tostring
   sclass.__tostring__ = N.tostring
   -- Torch7's elementSize ignored its arguments, and code calls it on the class itself
   -- (torchnet: `torch.FloatStorage.elementSize()`).
   for _, c in ipairs { { tclass, tname, new_tensor }, { sclass, sname, new_storage } } do
      local class, name, new = c[1], c[2], c[3]
      local of_instance = class.elementSize
      class.elementSize = function(self)
         if typename(self) ~= name then self = new() end
         return of_instance(self)
      end
   end

   local tindex, tnewindex = N.tensorIndex, N.tensorNewIndex
   local tmeta = tensor_operators(tclass)
   tmeta.__typename, tmeta.__version = tname, 1
   tmeta.__index = function(t, k)
      local v = tclass[k]
      if v ~= nil then return v end
      if type(k) ~= 'string' then return tindex(t, k) end
   end
   tmeta.__newindex = tnewindex
   tmeta.__tostring = function(t) return tclass.__tostring__(t) end
   tmeta.__len = function(t) return t:size() end

   local sindex, snewindex = N.storageIndex, N.storageNewIndex
   local smeta = {
      __typename = sname,
      __version = 1,
      __index = function(s, k)
         local v = sclass[k]
         if v ~= nil then return v end
         if type(k) ~= 'string' then return sindex(s, k) end
      end,
      __newindex = snewindex,
      __tostring = function(s) return sclass.__tostring__(s) end,
      __len = function(s) return s:size() end,
      __eq = N.storageSame,
   }
   N.register(T, tmeta, smeta)

   register_class(tname, tclass)
   register_class(sname, sclass)
   -- The userdata's own metatables (mlua makes them from tmeta and smeta) name their class too,
   -- as luaT_typename reads them. A device class without a device makes no instance: skipped.
   for _, c in ipairs { { new_tensor, tname }, { new_storage, sname } } do
      local ok, instance = pcall(c[1])
      if ok then registry[debug_getmetatable(instance)] = c[2] end
   end
   return constructor_table(tname, tclass, new_tensor), constructor_table(sname, sclass, new_storage)
end
torch._nativeClasses = native_classes

for _, T in ipairs(C.types) do
   torch[T .. 'Tensor'], torch[T .. 'Storage'] = native_classes(C, T, 'torch.' .. T .. 'Tensor',
      'torch.' .. T .. 'Storage')
end

-- torch.isatty(file): whether a Lua file handle (io.stdout, say) is a terminal.
function torch.isatty(f)
   if io.type(f) ~= 'file' then
      error('torch.isatty: an open Lua file handle expected (io.stdout, say), got ' ..
         (io.type(f) == 'closed file' and 'a closed file' or type(f)), 2)
   end
   local ffi = require 'ffi'
   pcall(ffi.cdef, 'int fileno(void *stream);')
   pcall(ffi.cdef, 'int isatty(int fd);')
   -- LuaJIT's FFI converts an io file handle to its FILE pointer.
   local fp = ffi.cast('void *', f)
   return ffi.C.isatty(ffi.C.fileno(fp)) == 1
end

-- torch.getnumcores(): the processor cores this process may use.
function torch.getnumcores()
   return require('libthreads')._ncores()
end

function torch.setdefaulttensortype(name)
   local T = type(name) == 'string' and name:match('^torch%.(%a+)Tensor$')
   if not T or not classes[name] then
      error('torch.setdefaulttensortype: invalid tensor type ' .. tostring(name), 2)
   end
   default_type = name
   torch.Tensor = torch[T .. 'Tensor']
   torch.Storage = torch[T .. 'Storage']
end

function torch.getdefaulttensortype()
   return default_type
end

torch.setdefaulttensortype('torch.DoubleTensor')

-- HalfTensor has what Torch7's has: storage, views, copies and conversions, without maths (a
-- script converts, x:float(), or gives the class the maths it needs). fill and zero are kept.
do
   local kept = {}
   for name in ([[apply clone contiguous copy dim elementSize expand fill index indexFill isContiguous
      isSameSizeAs isSetTo isSize map map2 maskedCopy maskedFill maskedSelect nDimension nElement
      numel narrow permute resize resizeAs select set size squeeze storage storageOffset stride sub
      t transpose unfold unsqueeze view zero]]):gmatch('%a+') do
      kept[name] = true
   end
   local half = classes['torch.HalfTensor']
   for name in pairs(C.tensorMethods) do
      if not kept[name] then half[name] = nil end
   end
end

-- Native functions of the torch table (torch.manualSeed, ...).
for k, f in pairs(C.torchFunctions) do torch[k] = f end

-- Methods written in Lua, shared by every tensor class; each file returns a table of methods
-- and may also define `torch.*` functions.
for _, file in ipairs { 'torch.Tensor', 'torch.math', 'torch.random' } do
   local methods = require(file)
   for _, T in ipairs(C.types) do
      local class = classes['torch.' .. T .. 'Tensor']
      if T ~= 'Half' or file == 'torch.Tensor' then
         for k, f in pairs(methods) do
            if rawget(class, k) == nil then class[k] = f end
         end
      end
   end
end

-- t:data() and s:data(): the address of the first element as an FFI pointer of the element type,
-- which FFI bindings pass to C (valid while the tensor or storage lives). t:cdata(): an opaque FFI
-- handle on the object itself (Torch's C structs are not ours to expose).
do
   local ffi = require 'ffi'
   local ctypes = { Byte = 'unsigned char*', Char = 'signed char*', Short = 'short*', Int = 'int*',
      Long = 'int64_t*', Float = 'float*', Double = 'double*', Half = 'uint16_t*' }
   local address = C.dataAddress
   for _, T in ipairs(C.types) do
      local ctype = ffi.typeof(ctypes[T])
      local function data(self) return ffi.cast(ctype, address(self)) end
      local function cdata(self) return ffi.cast('void*', C.userdataAddress(self)) end
      for _, name in ipairs { 'torch.' .. T .. 'Tensor', 'torch.' .. T .. 'Storage' } do
         classes[name].data, classes[name].cdata = data, cdata
      end
   end
end

-- The rest of the package: files, serialization, utilities.
require 'torch.File'
require 'torch.Timer'
require 'torch.CmdLine'
require 'torch.Tester'
require 'torch.utils'

-- getmetatable(tensor) gives its class, as under luaT (userdata metatables are otherwise hidden).
do
   local raw_getmetatable = getmetatable
   function _G.getmetatable(obj)
      if type(obj) == 'userdata' then
         local name = typename(obj)
         if name then return classes[name] end
      end
      return raw_getmetatable(obj)
   end
end

return torch
