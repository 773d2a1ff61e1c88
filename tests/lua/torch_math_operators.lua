-- The tensor operators: + - * / % unary minus and ^; each returns a new tensor, tensor*tensor is
-- dot, mv or mm by rank.
local H = dofile('torch_test_helpers.lua')
local same, fails, is = H.same, H.fails, H.is

local x = torch.Tensor({ 1, 2, 3 })
local y = torch.Tensor({ 10, 20, 30 })

local function fresh(r)
   assert(torch.isTensor(r) and not is(r, x) and not is(r, y))
   return r
end

same(fresh(x + y), { 11, 22, 33 }, 'torch.DoubleTensor')
same(fresh(x + 1), { 2, 3, 4 })
same(fresh(1 + x), { 2, 3, 4 })
same(fresh(x - y), { -9, -18, -27 })
same(fresh(x - 1), { 0, 1, 2 })
same(fresh(10 - x), { 9, 8, 7 })
same(fresh(x * 2), { 2, 4, 6 })
same(fresh(2 * x), { 2, 4, 6 })
same(fresh(x / 2), { 0.5, 1, 1.5 })
same(fresh(x % 2), { 1, 0, 1 })
same(fresh(torch.Tensor({ -3, 3 }) % 2), { 1, 1 })
same(fresh(-x), { -1, -2, -3 })
same(fresh(x ^ 2), { 1, 4, 9 })
same(fresh(2 ^ x), { 2, 4, 8 })
same(x, { 1, 2, 3 })
same(y, { 10, 20, 30 })
same(x + y * 2 - 1, { 20, 41, 62 })

-- The type is kept, integer semantics apply.
assert(torch.type(torch.FloatTensor({ 1 }) + 1) == 'torch.FloatTensor')
same(torch.IntTensor({ 7, -7 }) / 2, { 3, -3 }, 'torch.IntTensor')
same(torch.IntTensor({ 7, -7 }) % 3, { 1, 2 }, 'torch.IntTensor')
same(-torch.ByteTensor({ 1, 0 }), { 255, 0 }, 'torch.ByteTensor')
same(5 - torch.ByteTensor({ 6 }), { 255 }, 'torch.ByteTensor')
assert(torch.LongTensor({ 3 }) * torch.LongTensor({ 4 }) == 12) -- a dot product: a number

-- Strided operands.
local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
same(m:t() + m, { { 2, 5 }, { 5, 8 } })
same(m:t() - 1, { { 0, 2 }, { 1, 3 } })
same(-m:t(), { { -1, -3 }, { -2, -4 } })

-- tensor * tensor: dot (1D.1D, a number), mv (2D.1D), mm (2D.2D).
assert(x * y == 140)
same(m * torch.Tensor({ 1, 1 }), { 3, 7 })
same(m * m, { { 7, 10 }, { 15, 22 } })
same(m:t() * m, { { 10, 14 }, { 14, 20 } })
same(torch.FloatTensor({ { 1, 2 } }) * torch.FloatTensor({ { 3 }, { 4 } }), { { 11 } }, 'torch.FloatTensor')

-- Errors.
fails('__mul__: multiplication between 3D and 1D tensors not supported (expected 1D or 2D tensors)',
   function() return torch.Tensor(2, 2, 2) * x end)
fails('__mul__: multiplication between 1D and 2D tensors not supported (expected 1D or 2D tensors)',
   function() return x * m end)
fails('__add__: expecting two tensors or one tensor and one number', function() return x + 'a' end)
fails('__add__: expecting two tensors or one tensor and one number', function() return {} + x end)
fails('__sub__: expecting two tensors or one tensor and one number', function() return x - {} end)
fails('__mul__: expecting two tensors or one tensor and one number', function() return x * 'a' end)
fails('__div__: expecting a tensor divided by a number', function() return x / y end)
fails('__div__: expecting a tensor divided by a number', function() return 1 / x end)
fails('__mod__: expecting a tensor modulo a number', function() return x % y end)
fails('__pow__: expecting a tensor and a number', function() return x ^ y end)
fails('add: inconsistent tensor size: sizes 3 and 2 have 3 and 2 elements',
   function() return x + torch.Tensor(2) end)
fails('add: invalid arguments: DoubleTensor FloatTensor\nexpected arguments: [*DoubleTensor*] DoubleTensor number'
   .. ' | [*DoubleTensor*] DoubleTensor [number] DoubleTensor', function() return x + torch.FloatTensor(3) end)
fails('div: division by zero', function() return torch.IntTensor({ 1 }) / 0 end)

print('ok')
