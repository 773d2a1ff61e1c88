-- Behaviour of argcheck (runs unchanged under Torch7's th as well).
local argcheck = require 'argcheck'
local env = require 'argcheck.env'
local doc = require 'argcheck.doc'
local utils = require 'argcheck.utils'

local function errof(f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error')
   -- drop the position prefix
   return (tostring(err):gsub('^[^\n]-:%d+: ', ''))
end

-- ordered, named, defaults, optional
local f = argcheck{
   { name = 'x', type = 'number', default = 0, help = 'the x' },
   { name = 'msg', type = 'string', opt = true },
   { name = 'y', type = 'number', defaulta = 'x' },
}
local function pack(...) return { n = select('#', ...), ... } end
local r = pack(f(1, 'a', 2)); assert(r.n == 3 and r[1] == 1 and r[2] == 'a' and r[3] == 2)
r = pack(f()); assert(r[1] == 0 and r[2] == nil and r[3] == 0)
r = pack(f('m')); assert(r[1] == 0 and r[2] == 'm' and r[3] == 0)
r = pack(f(5)); assert(r[1] == 5 and r[3] == 5)
r = pack(f(nil, nil, 4)); assert(r[1] == 0 and r[2] == nil and r[3] == 4)
r = pack(f{ msg = 'q', y = 3 }); assert(r[1] == 0 and r[2] == 'q' and r[3] == 3)
r = pack(f{}); assert(r[1] == 0 and r[3] == 0)

local expected_usage = '\n' .. [[
*Arguments:*
```
({
  [x   = number]  -- the x [default=0]
  [msg = string]  -- 
  [y   = number]  --  [defaulta=x]
})
```
*Got:* **boolean**

invalid arguments!]]
assert(errof(f, true) == expected_usage)
assert(errof(f, { z = 1 }):find('*Got:* **table**={ **z=number** }', 1, true))
assert(errof(f, { [1] = 1 }):find('*Got:* **table**={ **[number]**=? }', 1, true))

-- help with @ARGP / @ARGT, recorded by argcheck.doc
doc.record()
local g = argcheck{
   help = 'g(@ARGP)\n@ARGT\n',
   { name = 'a', type = 'string' },
   { name = 'bb', type = 'boolean', default = true, help = 'flag' },
   { name = 'c', type = 'table', defaultf = function() return {} end },
   noordered = true,
   call = function(a, bb, c) return a, bb, c end,
}
local recorded = doc.stop()
assert(recorded == [[
g(a[, bb][, c])
```
{
   a  = string    -- 
  [bb = boolean]  -- flag [default=true]
  [c  = table]    --  [has default]
}
```
]], recorded)
local a1, b1, c1 = g{ a = 'z' }
assert(a1 == 'z' and b1 == true and type(c1) == 'table')
local _, _, c2 = g{ a = 'z' }
assert(c1 ~= c2) -- defaultf is called each time
assert(errof(g, 'z'):find('invalid arguments!', 1, true)) -- ordered calls refused

-- nonamed: a table is an ordinary argument
local h = argcheck{ nonamed = true, { name = 't', type = 'table' }, { name = 'n', type = 'number', default = 1 } }
local t, n = h({ n = 5 })
assert(type(t) == 'table' and n == 1)

-- pack, quiet
local p = argcheck{ pack = true, { name = 'x', type = 'number' }, { name = 's', type = 'string', default = 'd' } }
local packed = p(3)
assert(packed.x == 3 and packed.s == 'd')
local q = argcheck{ quiet = true, { name = 'x', type = 'number' } }
local okq, xq = q(4); assert(okq == true and xq == 4)
local badq, msgq = q('no'); assert(badq == false and msgq:find('*Got:* **string**', 1, true))
local qc = argcheck{ quiet = true, { name = 'x', type = 'number' }, call = function(x) return x * 2 end }
local fn, xv = qc(4); assert(type(fn) == 'function' and xv == 4 and fn(xv) == 8)

-- checks
local chk = argcheck{ { name = 'x', type = 'number', check = function(x) return x > 0 end } }
assert(chk(1) == 1 and not pcall(chk, -1))

-- overload, ambiguity, force
local o = argcheck{ { name = 'x', type = 'number' }, call = function(x) return 'num', x end }
o = argcheck{ { name = 's', type = 'string' }, overload = o, call = function(s) return 'str', s end }
assert(select(1, o(1)) == 'num' and select(1, o('a')) == 'str')
assert(errof(o) == '\n' .. [[
*Arguments:*
```
({
   x = number  -- 
})
```

or


*Arguments:*
```
({
   s = string  -- 
})
```
*Got:* 

invalid arguments!]])
assert(errof(argcheck, { { name = 'y', type = 'number' }, overload = o }) == 'argcheck rules led to ambiguous situations')
o = argcheck{ { name = 'y', type = 'number' }, overload = o, force = true, call = function(y) return 'forced', y end }
assert(o(2) == 'forced')
assert(errof(argcheck, { { name = 'y', type = 'number' }, overload = print }) == 'trying to overload a non-argcheck function')

-- methods: self first, named arguments after it
local obj
if pcall(require, 'torch') then
   -- (Torch7's torch.typename only knows registered classes)
   local ctors = {}
   torch.class('Thing', ctors)
   obj = ctors.Thing()
   obj.v = 10
else
   obj = setmetatable({ v = 10 }, { __typename = 'Thing' })
end
obj.add = argcheck{
   { name = 'self', type = 'Thing' },
   { name = 'x', type = 'number', default = 1 },
   call = function(self, x) return self.v + x end,
}
assert(obj:add() == 11 and obj:add(5) == 15 and obj:add{ x = 2 } == 12 and obj:add{} == 11)
assert(errof(obj.add, obj, 'bad'):find('*Got:* **Thing**, **string**', 1, true))
assert(errof(obj.add, obj, { y = 1 }):find('*Got:* **Thing**, **table**={ **y=number** }', 1, true))

-- rule validation messages
assert(errof(argcheck, { nonamed = true, noordered = true }) == 'rules must be at least ordered or named')
assert(errof(argcheck, { { type = 'number' } }) == 'rule must have a name field')
assert(errof(argcheck, { doc = 'a', help = 'b' }) == 'choose between doc or help, not both')
assert(errof(argcheck, { { name = 'self', type = 'table', opt = true } }) == 'self cannot be optional, nor having a default value!')
assert(errof(argcheck, { { name = 'x', type = 'number', check = 3 } }) == 'rule check must be a function or nil')
assert(errof(argcheck, { { name = 'x', type = 'number', defaulta = 'nope', opt = false } , call = print }):find('invalid defaulta name <nope>', 1, true))

-- debug: the code is printed, the dot graph returned
local oldprint = print
local printed
print = function(s) printed = s end
local dbg, dot = argcheck{ debug = true, { name = 'x', type = 'number' } }
print = oldprint
assert(type(printed) == 'string' and printed:find('return function', 1, true))
assert(dbg(3) == 3)
assert(dot:match('^digraph ACN {') and dot:find('label="number (x)"', 1, true) and dot:match('}$'))

-- upvalue helpers
assert(utils.getupvalue(dbg, 'graph') ~= nil)
assert(not pcall(utils.getupvalue, dbg, 'nosuchthing'))
assert(utils.getupvalue(dbg, 'nosuchthing', true) == nil)
local dup = utils.duptable({ 1, a = 2 }); assert(dup[1] == 1 and dup.a == 2)

-- env
assert(env.type(3) == 'number' and env.type(obj) == 'Thing')
assert(env.istype(obj, 'Thing') and not env.istype(obj, 'table'))
assert(env.argcheck == argcheck)
if pcall(require, 'torch') then
   local tt = torch.LongTensor()
   assert(env.istype(tt, 'torch.LongTensor') and env.istype(tt, 'torch.*Tensor'))
   assert(not env.istype(tt, 'torch.Long') and not env.istype(tt, 'torch.IntTensor'))
   torch.class('argtestParent')
   torch.class('argtestChild', 'argtestParent')
   local child = argtestChild()
   assert(env.istype(child, 'argtestChild') and env.istype(child, 'argtestParent'))
   assert(not env.istype(child, 'argtestOther'))
   local takesParent = argcheck{ { name = 'p', type = 'argtestParent' } }
   assert(takesParent(child) == child)
end

print('ok')
