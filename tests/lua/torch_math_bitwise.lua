-- lshift, rshift, bitand, bitor, bitxor (tensor with a number) and clshift, crshift, cbitand,
-- cbitor, cbitxor (tensor with a tensor): every calling form, each integer type's C semantics,
-- Float/Double shifts as powers of two, strided views, and the errors.
local H = dofile('torch_test_helpers.lua')
local same, is, fails_containing = H.same, H.is, H.fails_containing

---------------------------------------------------------------------------------------------------
-- The calling forms: x:f(v) in place, res:f(x, v), torch.f(x, v) new, torch.f(res, x, v).
for _, name in ipairs({ 'lshift', 'rshift', 'bitand', 'bitor', 'bitxor' }) do
   local want = ({
      lshift = { 20, 24, 28 }, rshift = { 1, 1, 1 }, bitand = { 4, 6, 6 },
      bitor = { 7, 7, 7 }, bitxor = { 3, 0, 1 },
   })[name]
   local v = ({ lshift = 2, rshift = 2, bitand = 6, bitor = 3, bitxor = 6 })[name]
   local x = torch.LongTensor({ 5, 6, 7 })
   local n = torch[name](x, v)
   assert(not is(n, x))
   same(n, want, 'torch.LongTensor')
   same(x, { 5, 6, 7 })
   local res = torch.LongTensor(9)
   assert(is(torch[name](res, x, v), res))
   same(res, want)
   local r2 = torch.LongTensor()
   assert(is(r2[name](r2, x, v), r2))
   same(r2, want)
   assert(is(x[name](x, v), x))
   same(x, want)
end

for _, name in ipairs({ 'clshift', 'crshift', 'cbitand', 'cbitor', 'cbitxor' }) do
   local y = torch.IntTensor({ 1, 2, 3 })
   local want = ({
      clshift = { 24, 48, 96 }, crshift = { 6, 3, 1 }, cbitand = { 0, 0, 0 },
      cbitor = { 13, 14, 15 }, cbitxor = { 13, 14, 15 },
   })[name]
   local x = torch.IntTensor({ 12, 12, 12 })
   same(torch[name](x, y), want, 'torch.IntTensor')
   same(x, { 12, 12, 12 })
   local res = torch.IntTensor()
   assert(is(torch[name](res, x, y), res))
   same(res, want)
   assert(is(res[name](res, x, y), res))
   same(res, want)
   assert(is(x[name](x, y), x))
   same(x, want)
   same(y, { 1, 2, 3 })
end

---------------------------------------------------------------------------------------------------
-- Every integer type: C's unsigned shifts of the type's width (no sign extension on the way right),
-- values that leave the type wrap.
same(torch.ByteTensor({ 200, 1, 255 }):lshift(1), { 144, 2, 254 })
same(torch.ByteTensor({ 200, 1, 255 }):rshift(3), { 25, 0, 31 })
same(torch.CharTensor({ -128, 64, -1 }):rshift(1), { 64, 32, 127 })
same(torch.CharTensor({ 1, 64, -1 }):lshift(1), { 2, -128, -2 })
same(torch.ShortTensor({ -1, 256 }):rshift(8), { 255, 1 })
same(torch.IntTensor({ -4, 1 }):rshift(1), { 2147483646, 0 })
same(torch.IntTensor({ 1, 3 }):lshift(31), { -2147483648, -2147483648 })
same(torch.LongTensor({ -1 }):rshift(60), { 15 })
same(torch.LongTensor({ 3 }):lshift(40), { 3 * 2 ^ 40 })
-- Counts past the width give 0 (C leaves them undefined).
same(torch.IntTensor({ 7 }):lshift(32), { 0 })
same(torch.ByteTensor({ 7 }):lshift(8), { 0 })
same(torch.LongTensor({ 7, 7 }):clshift(torch.LongTensor({ 64, 1 })), { 0, 14 })

for _, T in ipairs(H.ints) do
   local x = torch[T .. 'Tensor']({ 12, 10, 0, 127 })
   same(torch.bitand(x, 10), { 8, 10, 0, 10 }, 'torch.' .. T .. 'Tensor')
   same(torch.bitor(x, 3), { 15, 11, 3, 127 })
   same(torch.bitxor(x, 5), { 9, 15, 5, 122 })
   local y = torch[T .. 'Tensor']({ 6, 6, 6, 1 })
   same(torch.cbitand(x, y), { 4, 2, 0, 1 })
   same(torch.cbitor(x, y), { 14, 14, 6, 127 })
   same(torch.cbitxor(x, y), { 10, 12, 6, 126 })
   same(torch.clshift(torch[T .. 'Tensor']({ 1, 3 }), torch[T .. 'Tensor']({ 2, 1 })), { 4, 6 })
   same(torch.crshift(torch[T .. 'Tensor']({ 64, 12 }), torch[T .. 'Tensor']({ 2, 1 })), { 16, 6 })
end
same(torch.CharTensor({ -1 }):bitand(15), { 15 })
same(torch.LongTensor({ -6 }):bitxor(-1), { 5 })
same(torch.ShortTensor({ -32768 }):bitor(1), { -32767 })

---------------------------------------------------------------------------------------------------
-- Float and Double shift by multiplying (dividing) by powers of two, fractional counts too.
for _, T in ipairs(H.floats) do
   same(torch[T .. 'Tensor']({ 3, -1.5 }):lshift(2), { 12, -6 }, 'torch.' .. T .. 'Tensor')
   same(torch[T .. 'Tensor']({ 3, -1.5 }):rshift(1), { 1.5, -0.75 })
   same(torch[T .. 'Tensor']({ 1 }):lshift(0.5), { math.sqrt(2) }, nil, 1e-6)
   same(torch[T .. 'Tensor']({ 5, 5 }):clshift(torch[T .. 'Tensor']({ 1, -1 })), { 10, 2.5 })
   same(torch[T .. 'Tensor']({ 5, 5 }):crshift(torch[T .. 'Tensor']({ 2, -2 })), { 1.25, 20 })
end

---------------------------------------------------------------------------------------------------
-- Strided views: a column, and sources of another shape with the same element count.
do
   local m = torch.LongTensor({ { 1, 2, 3 }, { 4, 5, 6 } })
   m:select(2, 2):lshift(4)
   same(m, { { 1, 32, 3 }, { 4, 80, 6 } })
   m:select(2, 3):bitor(8)
   same(m, { { 1, 32, 11 }, { 4, 80, 14 } })
   local t = m:t()
   local r = torch.cbitxor(t, torch.LongTensor({ 1, 1, 1, 1, 1, 1 }):view(3, 2))
   same(r, { { 0, 5 }, { 33, 81 }, { 10, 15 } })
   same(torch.cbitand(m, torch.LongTensor(3, 2):fill(3)), { { 1, 0, 3 }, { 0, 0, 2 } })
   local big = torch.IntTensor(5, 7):fill(6)
   H.num(big:narrow(2, 2, 3):crshift(torch.IntTensor(5, 3):fill(1)):sum(), 45)
   H.num(big:sum(), 6 * 20 + 3 * 15)
end

---------------------------------------------------------------------------------------------------
-- Errors: the bitwise ops are for the integer types; operands of one type and one element count.
for _, T in ipairs(H.floats) do
   local x = torch[T .. 'Tensor']({ 1, 2 })
   for _, name in ipairs({ 'bitand', 'bitor', 'bitxor' }) do
      fails_containing(function() return x[name](x, 1) end,
         name .. ': only supported for integer type tensors, not torch.' .. T .. 'Tensor')
      fails_containing(function() return torch['c' .. name](x, x) end,
         'c' .. name .. ': only supported for integer type tensors')
   end
end
fails_containing(function() return torch.HalfTensor({ 1 }):lshift(1) end, 'lshift')
fails_containing(function() return torch.cbitand(torch.IntTensor(3), torch.IntTensor(4)) end,
   'cbitand: inconsistent tensor size')
fails_containing(function() return torch.clshift(torch.IntTensor(3), torch.LongTensor(3)) end,
   'clshift: invalid arguments: IntTensor LongTensor')
fails_containing(function() return torch.LongTensor(2):bitand('x') end, 'bitand: invalid arguments')
fails_containing(function() return torch.LongTensor(2):lshift() end, 'lshift: invalid arguments')
fails_containing(function() return torch.LongTensor(2):cbitor(3) end, 'cbitor: invalid arguments')

print('ok')
