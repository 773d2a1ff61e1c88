-- HalfTensor and HalfStorage: a storage type as in Torch7, made, viewed, copied, converted and
-- serialized, without maths of its own.

local x = torch.Tensor({ { 1, 2.5, -3 }, { 65504, 1e-3, 0 } }):half()
assert(torch.type(x) == 'torch.HalfTensor' and x:dim() == 2 and x:nElement() == 6)
assert(x:isContiguous() and x:stride(1) == 3 and x:elementSize() == 2)
assert(torch.HalfStorage():elementSize() == 2 and torch.HalfStorage(4):size() == 4)
assert(x[1][2] == 2.5 and x[2][1] == 65504)
-- Rounded to the nearest half: 1e-3 is 0.0010004043579101562 in half precision.
assert(math.abs(x[2][2] - 0.0010004043579101562) < 1e-12)
assert(torch.HalfTensor({ 1e6 })[1] == math.huge, 'out of range becomes inf')

-- Views share the storage; copies go both ways with every type.
local t = x:t()
assert(not t:isContiguous() and t[3][1] == -3)
local n = x:narrow(2, 2, 2)
n[1][1] = 7
assert(x[1][2] == 7)
local y = torch.HalfTensor():resizeAs(t):copy(t)
assert(y:isContiguous() and y[3][1] == -3)
local c = x:clone()
x:select(1, 1):fill(3)
assert(c[1][1] == 1 and x[1][1] == 3 and x[1][3] == 3)
for _, T in ipairs { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' } do
   local other = torch[T .. 'Tensor'](2, 2):fill(5)
   local h = torch.HalfTensor(2, 2):copy(other)
   assert(h[2][2] == 5, T)
   assert(torch[T .. 'Tensor'](2, 2):copy(h)[1][2] == 5, T)
end
assert(torch.type(x:float()) == 'torch.FloatTensor' and x:float()[2][1] == 65504)
assert(torch.type(torch.randn(2):half():double()) == 'torch.DoubleTensor')

-- No maths, as in Torch7: the class has no such methods (code tests `t.abs` to know), and the
-- function forms give a clear error, not a crash.
assert(x.add == nil and x.abs == nil and x.sum == nil and x.__add__ == nil)
assert(x.fill and x.zero and x.view and x.index and x.maskedSelect and x.repeatTensor)
local ok, err = pcall(torch.sum, x)
assert(not ok and err:find('HalfTensor has no maths'), err)
-- A script may give the class the maths it needs, metamethods included.
function torch.HalfTensor:__sub(other)
   return (self:float() - other:float()):half()
end
local d = torch.HalfTensor({ 3, 4 }) - torch.HalfTensor({ 1, 1 })
assert(torch.type(d) == 'torch.HalfTensor' and d[1] == 2 and d[2] == 3)
torch.HalfTensor.__sub = nil

-- Serialization, binary and ASCII, as Torch7 writes it (2-byte halves).
for _, mode in ipairs { 'binary', 'ascii' } do
   local f = torch.MemoryFile()
   f[mode](f)
   f:writeObject(x)
   f:seek(1)
   local z = f:readObject()
   assert(torch.type(z) == 'torch.HalfTensor' and z:float():equal(x:float()), mode)
end
local f = torch.MemoryFile():binary()
f:writeHalf(torch.HalfStorage({ 1, -2 }))
f:seek(1)
local s = f:readShort(2)
assert(s[1] == 0x3c00 and s[2] == -16384, 'raw bits of 1 and -2')

-- data(): an FFI pointer to the first element, for C code.
local l = torch.LongTensor({ 10, 20, 30 }):narrow(1, 2, 2)
local p = l:data()
assert(p[0] == 20 and p[1] == 30)
p[1] = 31
assert(l[2] == 31)
assert(torch.FloatStorage({ 1.5 }):data()[0] == 1.5)
assert(type(l:cdata()) == 'cdata')

-- elementSize, isSetTo, select on a row.
assert(torch.LongTensor():elementSize() == 8 and torch.ByteTensor():elementSize() == 1)
local a = torch.Tensor(3, 4)
local b = torch.Tensor():set(a)
assert(a:isSetTo(b) and b:isSetTo(a) and not a:isSetTo(torch.Tensor(3, 4)))
assert(not a:isSetTo(b:view(12)), 'a different view')
assert(not torch.Tensor():isSetTo(torch.Tensor()))
local row = torch.Tensor({ 4, 5, 6 })
assert(row:select(1, 2) == 5 and row:select(2, 3) == 6, 'a row selects its element')
assert(torch.Tensor.isTensor(row) and not torch.Tensor.isTensor(5))

print('ok')
