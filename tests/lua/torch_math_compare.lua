-- lt, le, gt, ge, eq, ne (ByteTensor results, or into a result of the source's type) and equal.
local H = dofile('torch_test_helpers.lua')
local same, fails, is = H.same, H.fails, H.is

local x = torch.Tensor({ 1, 2, 3 })
local y = torch.Tensor({ 0, 2, 5 })
local with_value = { lt = { 1, 0, 0 }, le = { 1, 1, 0 }, gt = { 0, 0, 1 }, ge = { 0, 1, 1 }, eq = { 0, 1, 0 },
   ne = { 1, 0, 1 } }
local with_tensor = { lt = { 0, 0, 1 }, le = { 0, 1, 1 }, gt = { 1, 0, 0 }, ge = { 1, 1, 0 }, eq = { 0, 1, 0 },
   ne = { 1, 0, 1 } }

for name, want in pairs(with_value) do
   -- x:lt(v) gives a new ByteTensor and leaves x alone.
   local m = x[name](x, 2)
   assert(not is(m, x))
   same(m, want, 'torch.ByteTensor')
   same(x, { 1, 2, 3 })
   same(torch[name](x, 2), want, 'torch.ByteTensor')
   same(x[name](x, y), with_tensor[name], 'torch.ByteTensor')
   same(torch[name](x, y), with_tensor[name], 'torch.ByteTensor')
   -- Into a ByteTensor result.
   local r = torch.ByteTensor(7)
   assert(is(r[name](r, x, 2), r))
   same(r, want)
   assert(is(torch[name](r, x, y), r))
   same(r, with_tensor[name])
   -- Into a result of the source's own type.
   local d = torch.Tensor()
   assert(is(d[name](d, x, 2), d))
   same(d, want, 'torch.DoubleTensor')
   assert(is(torch[name](d, x, y), d))
   same(d, with_tensor[name], 'torch.DoubleTensor')
   -- Every type.
   for _, T in ipairs(H.types) do
      local t = torch[T .. 'Tensor']({ 1, 2, 3 })
      same(t[name](t, 2), want, 'torch.ByteTensor')
      same(torch[name](t, torch[T .. 'Tensor']({ 0, 2, 5 })), with_tensor[name], 'torch.ByteTensor')
      local own = torch[T .. 'Tensor']()
      same(own[name](own, t, 2), want, 'torch.' .. T .. 'Tensor')
   end
end

-- NaN compares false, except ne.
local nan = torch.Tensor({ 0 / 0 })
same(nan:eq(0 / 0), { 0 })
same(nan:lt(1), { 0 })
same(nan:ge(nan), { 0 })
same(nan:ne(nan), { 1 })

-- The number is converted to the element type first (C semantics).
same(torch.IntTensor({ 1, 2, 3 }):gt(1.5), { 0, 1, 1 })
same(torch.ByteTensor({ 0, 200 }):lt(100), { 1, 0 })
same(torch.ByteTensor({ 255, 1 }):eq(-1), { 1, 0 })

-- Strided operands and results.
local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
same(m:t():gt(m), { { 0, 1 }, { 0, 0 } })
same(torch.le(m:t(), 2), { { 1, 0 }, { 1, 0 } })
local rb = torch.ByteTensor(2, 2):zero()
rb:t():eq(m, 3)
same(rb, { { 0, 1 }, { 0, 0 } })

-- Errors.
local forms = '[*ByteTensor*] DoubleTensor number | *DoubleTensor* DoubleTensor number'
   .. ' | [*ByteTensor*] DoubleTensor DoubleTensor | *DoubleTensor* DoubleTensor DoubleTensor'
fails('lt: inconsistent tensor size: sizes 3 and 2 have 3 and 2 elements', function() x:lt(torch.Tensor(2)) end)
fails('lt: invalid arguments: DoubleTensor FloatTensor\nexpected arguments: ' .. forms,
   function() x:lt(torch.FloatTensor(3)) end)
fails('gt: invalid arguments: DoubleTensor\nexpected arguments: ' .. forms, function() x:gt() end)
fails('eq: invalid arguments: IntTensor DoubleTensor number\nexpected arguments: ' .. forms,
   function() torch.IntTensor():eq(x, 2) end)
fails('ne: invalid arguments: DoubleTensor string\nexpected arguments: ' .. forms, function() x:ne('a') end)
fails('ge: invalid arguments: number number\nexpected arguments: [*ByteTensor*] DoubleTensor number'
   .. ' | *DoubleTensor* DoubleTensor number | [*ByteTensor*] DoubleTensor DoubleTensor'
   .. ' | *DoubleTensor* DoubleTensor DoubleTensor', function() torch.ge(1, 2) end)

---------------------------------------------------------------------------------------------------
-- equal: same size and values.
assert(torch.equal(x, x:clone()) == true)
assert(x:equal(torch.Tensor({ 1, 2, 4 })) == false)
assert(torch.equal(x, torch.Tensor({ { 1, 2, 3 } })) == false)
assert(m:t():equal(torch.Tensor({ { 1, 3 }, { 2, 4 } })))
assert(not m:equal(m:t()))
assert(torch.equal(torch.Tensor(), torch.Tensor()))
assert(not torch.equal(torch.Tensor({ 0 / 0 }), torch.Tensor({ 0 / 0 })))
assert(torch.equal(torch.IntTensor({ 5, -5 }), torch.IntTensor({ 5, -5 })))
assert(torch.equal(1, 1) and not torch.equal(1, 2))
fails('equal: invalid arguments: DoubleTensor FloatTensor\nexpected arguments: DoubleTensor DoubleTensor | number number',
   function() torch.equal(x, torch.FloatTensor({ 1, 2, 3 })) end)
fails('equal: invalid arguments: DoubleTensor\nexpected arguments: DoubleTensor DoubleTensor | number number',
   function() x:equal() end)

print('ok')
