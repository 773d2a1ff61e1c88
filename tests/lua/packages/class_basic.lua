-- Behaviour of the class package (runs under Torch7's th too, except where marked).
local class = require 'class'
local env = require 'argcheck.env'
local argcheck = require 'argcheck'

local function raises(pattern, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error matching ' .. pattern)
   assert(tostring(err):find(pattern), 'unexpected error: ' .. tostring(err))
end

-- the README example
local A = class('TA')
function A:__init(stuff) self.stuff = stuff end
function A:run() return self.stuff end
local B, Aparent = class('TB', 'TA')
assert(Aparent == class.metatable('TA'))
function B:run5() return self.stuff:rep(5) end
-- every class gets its own (empty) __init: B must call its parent's itself
assert(B('y').stuff == nil)
function B:__init(stuff) A.__init(self, stuff) end

local a = A('hello A')
local aa = A.new('hello A2')
local b = B('x')
assert(a:run() == 'hello A' and aa:run() == 'hello A2')
assert(b:run() == 'x' and b:run5() == 'xxxxx')

-- constructor tables read and write through to the metatable
assert(getmetatable(A) == class.metatable('TA'))
assert(rawget(A, 'run') == nil and A.run == class.metatable('TA').run)
function A:late() return 'late' end
assert(class.metatable('TA').late ~= nil and b:late() == 'late')
assert(getmetatable(a) == class.metatable('TA'))
assert(getmetatable(class.metatable('TB')) == class.metatable('TA'))
assert(class.metatable('TB').__typename == 'TB')
assert(class.metatable('nope') == nil)

-- an overridden __init, calling the parent's
local C = class('TC', 'TB')
function C:__init(x, y) A.__init(self, x); self.y = y end
local c = C('s', 2)
assert(c.stuff == 's' and c.y == 2 and c:run5() == 'sssss')

-- types
assert(class.type(a) == 'TA' and class.type(b) == 'TB' and class.type(c) == 'TC')
assert(class.type(3) == 'number' and class.type({}) == 'table' and class.type(nil) == 'nil')
assert(class.istype(a, 'TA') and not class.istype(a, 'TB'))
assert(class.istype(b, 'TA') and class.istype(b, 'TB') and not class.istype(b, 'TC'))
assert(class.istype(c, 'TA') and class.istype(c, 'TB') and class.istype(c, 'TC'))
assert(class.istype(3, 'number') and class.istype('s', 'string') and not class.istype(3, 'TA'))
assert(class.istype(a, 'table') == false) -- a declared class name wins over the Lua type
local foreign = setmetatable({}, { __typename = 'Foreign' })
assert(class.type(foreign) == 'Foreign')
assert(class.istype(foreign, 'Foreign') and not class.istype(foreign, 'TA'))
assert(class.istype(a, 'Foreign') == false)

-- argcheck now checks class types
assert(env.istype == class.istype)
local f = argcheck{ { name = 'obj', type = 'TA' }, call = function(obj) return obj.stuff end }
assert(f(b) == 'x' and f(c) == 's')
raises('invalid arguments', f, 3)

-- errors
raises('class <TA> already exists', class.new, 'TA')
raises('parent class <Missing> does not exist', class.new, 'TD', 'Missing')
raises('invalid arguments', class.new, 3)
raises('invalid arguments', class.metatable, 3)
raises('unknown class <Nope>', class.factory, 'Nope')

-- named arguments work too (class.new is an argcheck function)
local E = class.new{ name = 'TE', parentname = 'TA' }
assert(class.istype(E(), 'TA'))

-- factory: an instance without __init (Torch7's class.factory fails with an index error)
if not (rawget(_G, 'jit') and jit.version:find('beta2')) then
   local inst = class.factory('TC')
   assert(getmetatable(inst) == class.metatable('TC') and inst.y == nil)
end

-- ffi ctypes
local ok, ffi = pcall(require, 'ffi')
if ok then
   ffi.cdef('typedef struct { int v; } class_test_point;')
   local ct = ffi.typeof('class_test_point')
   class.new('TPoint', nil, ct)
   local p = ct()
   assert(class.type(p) == 'TPoint' and class.istype(p, 'TPoint'))
   raises('already considered as <TPoint>', class.new, 'TPoint2', nil, ct)
end

print('ok')
