-- torch.histc and torch.bhistc: counts by hand, the default range (the data's), the result forms,
-- Float and Double, and the errors.
local H = dofile('torch_test_helpers.lua')
local same, is, fails_containing = H.same, H.is, H.fails_containing

---------------------------------------------------------------------------------------------------
-- histc: nbins equal bins over [min, max]; values outside are left out; max goes in the last bin.
do
   local x = torch.Tensor({ 2, 4, 2, 2, 5, 4, 0, 6 })
   same(torch.histc(x, 5, 1, 5), { 0, 3, 0, 2, 1 }, 'torch.DoubleTensor')
   same(x:histc(5, 1, 5), { 0, 3, 0, 2, 1 })
   -- min == max: the data's range, here [0, 6] in 3 bins of width 2.
   same(torch.histc(x, 3), { 1, 3, 4 })
   same(torch.histc(x, 3, 7, 7), { 1, 3, 4 })
   -- The defaults: 100 bins over the data's range.
   local h = torch.histc(x)
   H.tensor(h, { 100 }, nil, 'default bins')
   H.num(h:sum(), 8)
   H.num(h[1], 1)
   H.num(h[100], 1)
   -- A range of one value is widened by 1 each side.
   same(torch.histc(torch.Tensor({ 3, 3, 3 }), 4), { 0, 0, 3, 0 })
   -- A strided source.
   local m = torch.Tensor({ { 1, 9 }, { 2, 9 }, { 3, 9 } })
   same(torch.histc(m:select(2, 1), 3, 1, 3), { 1, 1, 1 })
   same(torch.histc(m, 2, 0, 10), { 3, 3 })
end

-- Result forms: torch.histc(res, ...) and res resized.
do
   local x = torch.FloatTensor({ 0.5, 1.5, 1.5, 2.5 })
   local res = torch.FloatTensor(7):fill(9)
   assert(is(torch.histc(res, x, 3, 0, 3), res))
   same(res, { 1, 2, 1 }, 'torch.FloatTensor')
   same(torch.histc(x, 2, 0, 2), { 1, 2 }, 'torch.FloatTensor')
end

---------------------------------------------------------------------------------------------------
-- bhistc: one histogram per row, over one range (the whole matrix's by default).
do
   local x = torch.Tensor({ { 2, 4, 2, 2, 5, 4 }, { 3, 5, 1, 5, 3, 5 }, { 3, 4, 2, 5, 5, 1 } })
   same(torch.bhistc(x, 5, 1, 5), { { 0, 3, 0, 2, 1 }, { 1, 0, 2, 0, 3 }, { 1, 1, 1, 1, 2 } })
   same(x:bhistc(2), { { 3, 3 }, { 1, 5 }, { 2, 4 } })
   local y = torch.Tensor({ { 0, 10 }, { 5, 5 } })
   same(torch.bhistc(y, 2, 0, 4), { { 1, 0 }, { 0, 0 } })
   local res = torch.Tensor()
   assert(is(torch.bhistc(res, y:t(), 2), res))
   same(res, { { 1, 1 }, { 0, 2 } })
   same(torch.bhistc(torch.FloatTensor(2, 3):fill(1), 2), { { 0, 3 }, { 0, 3 } }, 'torch.FloatTensor')
end

---------------------------------------------------------------------------------------------------
-- Errors.
fails_containing(function() return torch.histc(torch.IntTensor({ 1, 2 }), 2) end,
   'histc: not implemented for torch.IntTensor')
fails_containing(function() return torch.bhistc(torch.LongTensor(2, 2), 2) end,
   'bhistc: not implemented for torch.LongTensor')
fails_containing(function() return torch.histc(torch.Tensor({ 1 }), 0) end,
   'histc: the number of bins must be a positive integer, got 0')
fails_containing(function() return torch.histc(torch.Tensor({ 1 }), -3) end,
   'histc: the number of bins must be a positive integer')
fails_containing(function() return torch.histc(torch.Tensor()) end, 'histc: empty tensor')
fails_containing(function() return torch.histc(torch.Tensor({ 1 }), 'x') end, 'histc: invalid arguments')
fails_containing(function() return torch.histc(torch.FloatTensor(), torch.Tensor({ 1 })) end,
   'histc: the result must be a torch.DoubleTensor, got a torch.FloatTensor')
fails_containing(function() return torch.bhistc(torch.Tensor(2, 2, 2), 2) end,
   'bhistc: invalid dimension 3, the input must be a 2d tensor')
fails_containing(function() return torch.bhistc(torch.Tensor({ 1, 2 }), 2) end,
   'bhistc: invalid dimension 2')

print('ok')
