-- copy between every pair of the seven types, fill/zero, type conversions.
local H = dofile('torch_test_helpers.lua')

-- Values every type can hold exactly.
local values = { 0, 1, 2, 100, 127 }
for _, A in ipairs(H.types) do
   for _, B in ipairs(H.types) do
      local src = torch[A .. 'Tensor'](values)
      local dst = torch[B .. 'Tensor'](5)
      H.check(dst:copy(src) == dst, A .. '->' .. B .. ' copy returns the receiver')
      H.tensor(dst, { 5 }, values, A .. ' -> ' .. B, 'torch.' .. B .. 'Tensor')
      -- Storage copy, same pair of types.
      local ss = torch[A .. 'Storage'](values)
      local ds = torch[B .. 'Storage'](5)
      ds:copy(ss)
      H.list(ds:totable(), values, A .. 'Storage -> ' .. B .. 'Storage')
   end
end

-- Float to integer truncates toward zero; signed values survive signed types.
H.list(H.flat(torch.IntTensor(3):copy(torch.DoubleTensor({ 1.9, -1.9, 2.5 }))), { 1, -1, 2 }, 'double -> int truncates')
H.list(H.flat(torch.LongTensor(2):copy(torch.CharTensor({ -5, 5 }))), { -5, 5 }, 'char -> long keeps the sign')
H.list(H.flat(torch.FloatTensor(1):copy(torch.DoubleTensor({ 0.1 }))), { torch.FloatStorage({ 0.1 })[1] }, 'double -> float rounds to float')
H.list(H.flat(torch.ByteTensor(1):copy(torch.IntTensor({ 300 }))), { 44 }, 'int -> byte wraps as C does')
H.list(H.flat(torch.ByteTensor(2):copy(torch.DoubleTensor({ -1, 257.5 }))), { 255, 1 }, 'double -> byte wraps as C does')
H.list(H.flat(torch.ByteTensor({ -1 })), { 255 }, 'a negative number in a ByteTensor wraps')

-- copy only needs the same number of elements; it walks both in logical order.
local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
local flat6 = torch.FloatTensor(6):copy(m)
H.list(H.flat(flat6), { 1, 2, 3, 4, 5, 6 }, '2x3 -> 6')
local t32 = torch.Tensor(3, 2):copy(m:t())
H.list(H.flat(t32), { 1, 4, 2, 5, 3, 6 }, 'copy from a transposed view')
local dstv = torch.Tensor(3, 2):zero()
dstv:t():copy(m)
H.list(H.flat(dstv), { 1, 4, 2, 5, 3, 6 }, 'copy into a transposed view')
local same = torch.Tensor({ 1, 2, 3, 4 })
same:narrow(1, 2, 3):copy(same:narrow(1, 1, 3):clone())
H.list(H.flat(same), { 1, 1, 2, 3 }, 'copy between overlapping parts via clone')
H.fails_containing(function() torch.Tensor(3):copy(torch.Tensor(4)) end, 'copy: sizes do not match (3 elements vs 4)')
H.fails_containing(function() torch.Tensor(3):copy({ 1, 2, 3 }) end, 'copy: bad argument #2 (tensor expected, got table)')
H.fails_containing(function() torch.DoubleStorage(2):copy(torch.DoubleStorage(3)) end, 'copy: sizes do not match (2 vs 3)')

-- fill and zero, through views.
local f = torch.Tensor(2, 3):fill(7)
H.list(H.flat(f), { 7, 7, 7, 7, 7, 7 }, 'fill')
f:select(2, 2):zero()
H.list(H.flat(f), { 7, 0, 7, 7, 0, 7 }, 'zero on a column')
H.check(f:fill(1) == f and f:zero() == f, 'fill and zero return the receiver')
H.list(torch.ByteStorage(3):fill(9):totable(), { 9, 9, 9 }, 'storage fill')
H.fails_containing(function() f:fill('x') end, 'fill: bad argument #2 (number expected, got string)')

-- Type conversions return the tensor itself when the type already matches, else a copy.
local d = torch.DoubleTensor({ 1.5, -2.5 })
H.check(d:double() == d, 'double() on a DoubleTensor is itself')
H.check(d:type('torch.DoubleTensor') == d, "type('torch.DoubleTensor') is itself")
H.check(d:typeAs(torch.DoubleTensor()) == d, 'typeAs the same type is itself')
H.eq(d:type(), 'torch.DoubleTensor', 'type() gives the name')
local conversions = { byte = 'Byte', char = 'Char', short = 'Short', int = 'Int', long = 'Long', float = 'Float', double = 'Double' }
for method, T in pairs(conversions) do
   local src = torch.IntTensor({ { 1, 2 }, { 3, 4 } })
   local out = src[method](src)
   H.tensor(out, { 2, 2 }, { 1, 2, 3, 4 }, method .. '()', 'torch.' .. T .. 'Tensor')
   if T == 'Int' then
      H.check(out == src, 'int() on an IntTensor is itself')
   else
      H.check(torch.pointer(out:storage()) ~= torch.pointer(src:storage()), method .. '() copies')
   end
end
local fl = d:float()
fl[1] = 100
H.eq(d[1], 1.5, 'a converted copy is independent')
H.list(H.flat(d:int()), { 1, -2 }, 'double -> int() truncates')
H.tensor(d:type('torch.FloatTensor'), { 2 }, { 1.5, -2.5 }, "type('torch.FloatTensor')", 'torch.FloatTensor')
H.tensor(d:typeAs(torch.LongTensor()), { 2 }, { 1, -2 }, 'typeAs(LongTensor)', 'torch.LongTensor')
H.tensor(torch.Tensor(2, 3):t():float(), { 3, 2 }, nil, 'conversion of a view keeps its sizes')
H.eq(torch.Tensor():float():dim(), 0, 'conversion of an empty tensor')
H.tensor(d:real(), { 2 }, nil, 'real() is the default type', 'torch.DoubleTensor')
H.fails_containing(function() d:type('torch.FooTensor') end, 'type: unknown tensor type torch.FooTensor')

print('ok')
