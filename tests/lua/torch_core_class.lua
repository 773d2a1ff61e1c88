-- torch.class: constructors, __init, inheritance, __tostring__, user metamethods, factories,
-- packages; and torch.typename/type/isTensor/isStorage/isTypeOf/getmetatable/pointer.
local H = dofile('torch_test_helpers.lua')

-- A global class with __init and methods.
local Point, noparent = torch.class('CorePoint')
H.eq(noparent, nil, 'no parent class')
function Point:__init(x, y)
   self.x, self.y = x, y
end
function Point:norm1() return math.abs(self.x) + math.abs(self.y) end
local p = CorePoint(3, -4)
H.eq(p.x, 3, '__init sets fields')
H.eq(p:norm1(), 7, 'methods')
H.eq(torch.typename(p), 'CorePoint', 'typename of an instance')
H.eq(torch.type(p), 'CorePoint', 'type of an instance')
H.check(getmetatable(p) == Point, 'the metatable of an instance is the class')
H.check(torch.getmetatable('CorePoint') == Point, 'torch.getmetatable(name)')
H.eq(CorePoint.norm1, Point.norm1, 'the constructor table reaches the methods')
H.check(CorePoint.new ~= nil and torch.typename(CorePoint.new(1, 1)) == 'CorePoint', 'Class.new')
-- Methods added later, through the class or the constructor, are seen by existing instances.
function CorePoint:scaled(k) return CorePoint(self.x * k, self.y * k) end
H.eq(p:scaled(2).x, 6, 'method added through the constructor table')

-- Default tostring: 'Name: 0x...'; __tostring__ overrides it.
H.check(tostring(p):match('^CorePoint: 0x%x+$') ~= nil, 'default tostring ' .. tostring(p))
function Point:__tostring__() return 'Point(' .. self.x .. ', ' .. self.y .. ')' end
H.eq(tostring(p), 'Point(3, -4)', '__tostring__')

-- Inheritance: parent returned, parent methods inherited, overrides, parent __init callable.
local Point3, parent = torch.class('CorePoint3', 'CorePoint')
H.check(parent == Point, 'torch.class returns the parent class')
function Point3:__init(x, y, z)
   parent.__init(self, x, y)
   self.z = z
end
function Point3:norm1() return parent.norm1(self) + math.abs(self.z) end
local q = CorePoint3(1, 2, -3)
H.eq(q:norm1(), 6, 'override calling the parent method')
H.eq(tostring(q), 'Point(1, 2)', 'inherited __tostring__')
H.eq(q:scaled(10).x, 10, 'inherited method')
H.check(torch.isTypeOf(q, 'CorePoint3'), 'isTypeOf own name')
H.check(torch.isTypeOf(q, 'CorePoint'), 'isTypeOf parent name')
H.check(torch.isTypeOf(q, CorePoint), 'isTypeOf parent constructor')
H.check(torch.isTypeOf(q, 'Core.*3'), 'isTypeOf matches a pattern')
H.check(not torch.isTypeOf(p, 'CorePoint3'), 'a parent instance is not of the child type')
H.check(not torch.isTypeOf({}, 'CorePoint'), 'isTypeOf plain table')
H.check(not torch.isTypeOf(3, 'number'), 'isTypeOf number')

-- Operators forward to __add__, __sub__, __mul__, __div__, __unm__, __call__, __eq__, __lt__,
-- __le__, __concat__, __mod__, __pow__ anywhere in the class chain.
local V = torch.class('CoreVec')
function V:__init(v) self.v = v end
function V.__add__(a, b) return CoreVec(a.v + b.v) end
function V.__sub__(a, b) return CoreVec(a.v - b.v) end
function V.__mul__(a, b)
   if type(b) == 'number' then return CoreVec(a.v * b) end
   if type(a) == 'number' then return CoreVec(a * b.v) end
   return CoreVec(a.v * b.v)
end
function V.__div__(a, b) return CoreVec(a.v / b) end
function V.__mod__(a, b) return CoreVec(a.v % b) end
function V.__pow__(a, b) return CoreVec(a.v ^ b) end
function V.__unm__(a) return CoreVec(-a.v) end
function V.__eq__(a, b) return a.v == b.v end
function V.__lt__(a, b) return a.v < b.v end
function V.__le__(a, b) return a.v <= b.v end
function V.__concat__(a, b) return tostring(a.v) .. '|' .. tostring(b.v) end
function V:__call__(k) return self.v * k end
local a, b = CoreVec(6), CoreVec(2)
H.eq((a + b).v, 8, '__add__')
H.eq((a - b).v, 4, '__sub__')
H.eq((a * b).v, 12, '__mul__')
H.eq((a * 3).v, 18, '__mul__ with a number on the right')
H.eq((3 * a).v, 18, '__mul__ with a number on the left')
H.eq((a / 4).v, 1.5, '__div__')
H.eq((a % 4).v, 2, '__mod__')
H.eq((b ^ 3).v, 8, '__pow__')
H.eq((-a).v, -6, '__unm__')
H.check(a == CoreVec(6), '__eq__')
H.check(a ~= b, '__eq__ false')
H.check(b < a and b <= a and not (a < b), '__lt__ and __le__')
H.eq(a .. b, '6|2', '__concat__')
H.eq(a(5), 30, '__call__')
local W = torch.class('CoreVec2', 'CoreVec')
H.eq((CoreVec2(1) + CoreVec2(2)).v, 3, 'operators are inherited')
H.fails_containing(function() return CorePoint(1, 1) + CorePoint(1, 1) end, 'without __add__')

-- Dotted names install into the package; an explicit module table receives the class.
local C = torch.class('corepkg.Thing')
H.check(corepkg ~= nil and corepkg.Thing ~= nil, 'dotted name creates the package')
H.eq(torch.typename(corepkg.Thing()), 'corepkg.Thing', 'dotted class instance')
local mod = {}
torch.class('coremod.Other', mod)
H.check(mod.Other ~= nil, 'the class is set in the given module')
H.eq(rawget(_G, 'coremod'), nil, 'no global package when a module is given')
H.eq(torch.typename(mod.Other()), 'coremod.Other', 'module class instance')

-- Factories make an instance without calling __init (what deserialization uses).
local made = torch.factory('CorePoint3')()
H.eq(torch.typename(made), 'CorePoint3', 'factory instance type')
H.eq(made.z, nil, 'factory does not call __init')
H.eq(torch.factory('NoSuchClass'), nil, 'factory of an unknown class')
H.eq(torch.typename(torch.factory('torch.FloatTensor')()), 'torch.FloatTensor', 'tensor factory')

-- Errors.
H.fails_containing(function() torch.class('CorePoint') end, 'torch.class: attempt to redefine Torch class <CorePoint>')
H.fails_containing(function() torch.class('CoreOrphan', 'NoSuchParent') end, 'torch.class: parent class <NoSuchParent> does not exist')

-- typename/type on non-torch values; isTensor/isStorage.
local t = torch.FloatTensor(2)
H.eq(torch.typename(t), 'torch.FloatTensor', 'typename of a tensor')
H.eq(torch.typename(t:storage()), 'torch.FloatStorage', 'typename of a storage')
H.eq(torch.typename(7), nil, 'typename of a number')
H.eq(torch.typename({}), nil, 'typename of a table')
H.eq(torch.type(7), 'number', 'type of a number')
H.eq(torch.type({}), 'table', 'type of a table')
H.eq(torch.type('s'), 'string', 'type of a string')
H.eq(torch.type(nil), 'nil', 'type of nil')
H.eq(torch.type(t), 'torch.FloatTensor', 'type of a tensor')
for _, T in ipairs(H.types) do
   local x = torch[T .. 'Tensor']()
   H.check(torch.isTensor(x), 'isTensor ' .. T)
   H.check(not torch.isStorage(x), 'isStorage of a tensor ' .. T)
   H.check(torch.isStorage(torch[T .. 'Storage']()), 'isStorage ' .. T)
   H.check(not torch.isTensor(torch[T .. 'Storage']()), 'isTensor of a storage ' .. T)
   H.check(torch.isTypeOf(x, 'torch.' .. T .. 'Tensor'), 'isTypeOf ' .. T)
   H.check(torch.isTypeOf(x, torch[T .. 'Tensor']), 'isTypeOf constructor ' .. T)
   H.check(getmetatable(x) == torch.getmetatable('torch.' .. T .. 'Tensor'), 'getmetatable of a tensor ' .. T)
end
H.check(not torch.isTensor(p), 'isTensor of a class instance')
H.check(not torch.isTensor({}) and not torch.isTensor(1), 'isTensor of plain values')
H.check(torch.isTypeOf(t, '.*Tensor'), 'isTypeOf pattern on a tensor')
H.check(not torch.isTypeOf(t, 'Tensor'), 'a plain name must be the whole type name')

-- Adding a method to a tensor class reaches every tensor of that type.
function torch.FloatTensor.coreDouble(self) return self:clone():fill(2) end
H.list(H.flat(torch.FloatTensor(2):coreDouble()), { 2, 2 }, 'method added to a tensor class')
H.eq(torch.DoubleTensor().coreDouble, nil, 'only to that class')
torch.getmetatable('torch.IntTensor').coreTag = function() return 'int' end
H.eq(torch.IntTensor():coreTag(), 'int', 'method added through torch.getmetatable')

-- pointer: the storage pointer identifies shared memory; distinct objects differ.
local base = torch.Tensor(4)
H.eq(torch.pointer(base:storage()), torch.pointer(base:narrow(1, 2, 2):storage()), 'views share a storage pointer')
H.check(torch.pointer(base:storage()) ~= torch.pointer(torch.Tensor(4):storage()), 'distinct storages')
H.eq(torch.pointer(base), torch.pointer(base), 'pointer is stable')
-- As Torch's: an address for objects, tables, functions, threads and cdata; an error for a plain value.
H.check(type(torch.pointer(print)) == 'number' and type(torch.pointer(coroutine.create(print))) == 'number', 'functions and threads')
H.check(torch.pointer(require('ffi').new('int[1]')) > 0, 'cdata')
H.fails_containing(function() torch.pointer(nil) end, 'torch.pointer: Torch object, table, thread, cdata or function expected, got nil')
H.fails_containing(function() torch.pointer(3) end, 'got number')
H.check(torch.pointer(base) ~= torch.pointer(base:narrow(1, 1, 4)), 'a view is another tensor')
H.eq(type(torch.pointer(p)), 'number', 'pointer of a class instance')
H.eq(torch.pointer(p), torch.pointer(p), 'pointer of a table is stable')
H.eq(torch.pointer(print), torch.pointer(print), 'pointer of a function')

print('ok')
