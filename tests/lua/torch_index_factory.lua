-- zeros, ones, eye, range, linspace, logspace: forms, result tensors, the default tensor type.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or '') .. 'torch_test_helpers.lua')
local same, fails = H.same, H.fails

-- zeros / ones
same(torch.zeros(2, 3), {{0, 0, 0}, {0, 0, 0}}, 'torch.DoubleTensor')
same(torch.zeros(torch.LongStorage{1, 2}), {{0, 0}})
same(torch.ones(4), {1, 1, 1, 1}, 'torch.DoubleTensor')
same(torch.ones({2, 1}), {{1}, {1}})
assert(torch.zeros():dim() == 0)
-- sizes are C longs, as in Torch7: fractions are cut toward zero (nn's tests make 3.5-sized kernels)
assert(torch.zeros(2.7, 3.2):isSameSizeAs(torch.zeros(2, 3)))
assert(torch.rand(3.5):nElement() == 3 and torch.Tensor(1.9):nElement() == 1)
fails('zeros: bad argument #1 (a size expected, got inf)', function() torch.zeros(math.huge) end)
-- a result tensor first (its type wins), also as a method
local r = torch.FloatTensor(5):fill(7)
assert(torch.zeros(r, 2) == r)
same(r, {0, 0}, 'torch.FloatTensor')
assert(r:ones(3) == r)
same(r, {1, 1, 1}, 'torch.FloatTensor')
same(torch.ones(torch.LongTensor(), 2, 2), {{1, 1}, {1, 1}}, 'torch.LongTensor')
-- a result of the same size keeps its strides
local base = torch.zeros(3, 2)
local view = base:t()
view:ones(2, 3)
same(base, {{1, 1}, {1, 1}, {1, 1}})
assert(not view:isContiguous())
-- a trailing type name picks the type, as Torch's dispatcher allows
same(torch.ones(2, 'torch.IntTensor'), {1, 1}, 'torch.IntTensor')
fails('zeros: invalid size -2', function() torch.zeros(-2) end)

-- eye
same(torch.eye(3), {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 'torch.DoubleTensor')
same(torch.eye(2, 3), {{1, 0, 0}, {0, 1, 0}})
same(torch.eye(3, 2), {{1, 0}, {0, 1}, {0, 0}})
same(torch.eye(2, 0), {{1, 0}, {0, 1}})
local e = torch.ByteTensor(9):fill(5)
assert(torch.eye(e, 2) == e)
same(e, {{1, 0}, {0, 1}}, 'torch.ByteTensor')
local eb = torch.Tensor(3, 2):fill(9)
eb:t():eye(2, 3)
same(eb, {{1, 0}, {0, 1}, {0, 0}})
fails('eye: invalid argument: n must be positive (got 0)', function() torch.eye(0) end)
fails('eye: bad argument #1 (number expected, got nil)', function() torch.eye() end)
fails('eye: bad argument #1 (integer expected, got 2.5)', function() torch.eye(2.5) end)
-- argument numbers count the result tensor
fails('eye: bad argument #2 (number expected, got nil)', function() torch.eye(torch.Tensor()) end)
fails('eye: bad argument #3 (number expected, got string)', function() torch.Tensor():eye(2, 'x') end)

-- range: inclusive, floor((b - a) / step) + 1 elements
same(torch.range(1, 5), {1, 2, 3, 4, 5}, 'torch.DoubleTensor')
same(torch.range(5, 1, -2), {5, 3, 1})
same(torch.range(2, 2), {2})
-- each element is a + i * step, computed in double
same(torch.range(0, 1, 0.3), {0, 0.3, 2 * 0.3, 3 * 0.3})
-- Torch's count rule in doubles: 0.3 / 0.1 is just under 3, so 3 elements, not 4
same(torch.range(0, 0.3, 0.1), {0, 0.1, 0.2})
same(torch.range(1, 2, 0.5), {1, 1.5, 2})
-- integer types take their arguments as integers (truncated)
same(torch.range(torch.LongTensor(), 1, 10, 3), {1, 4, 7, 10}, 'torch.LongTensor')
same(torch.range(torch.IntTensor(), 1.9, 4.5), {1, 2, 3, 4}, 'torch.IntTensor')
same(torch.range(torch.FloatTensor(), 0, 1, 0.25), {0, 0.25, 0.5, 0.75, 1}, 'torch.FloatTensor')
-- a result with the right element count keeps its shape; otherwise it becomes 1-D
local rr = torch.Tensor(2, 3)
assert(torch.range(rr, 1, 6) == rr)
same(rr, {{1, 2, 3}, {4, 5, 6}})
assert(rr:range(1, 4) == rr)
same(rr, {1, 2, 3, 4})
local rb = torch.zeros(3, 2)
rb:t():range(1, 6)
same(rb, {{1, 4}, {2, 5}, {3, 6}})
fails('range: step must be nonzero', function() torch.range(1, 5, 0) end)
fails('range: step must be nonzero', function() torch.range(torch.LongTensor(), 1, 5, 0.5) end)
fails('range: upper bound and larger bound inconsistent with step sign (from 5 to 1 by 1)',
   function() torch.range(5, 1) end)
fails('range: upper bound and larger bound inconsistent with step sign (from 1 to 5 by -1)',
   function() torch.range(1, 5, -1) end)
fails('range: bad argument #2 (number expected, got nil)', function() torch.range(1) end)
fails('range: bad argument #3 (number expected, got nil)', function() torch.range(torch.Tensor(), 1) end)
fails('linspace: bad argument #4 (integer expected, got 1.5)', function() torch.Tensor():linspace(0, 1, 1.5) end)
fails('ones: bad argument #2 (number expected, got boolean)', function() torch.ones(torch.Tensor(), true) end)

-- linspace
same(torch.linspace(0, 1, 5), {0, 0.25, 0.5, 0.75, 1}, 'torch.DoubleTensor')
same(torch.linspace(1, -1, 3), {1, 0, -1})
same(torch.linspace(3, 3, 1), {3})
local l100 = torch.linspace(0, 99)
assert(l100:size(1) == 100 and l100[1] == 0 and l100[51] == 50 and l100[100] == 99)
same(torch.linspace(torch.FloatTensor(), 0, 1, 3), {0, 0.5, 1}, 'torch.FloatTensor')
local lr = torch.Tensor(2, 2)
torch.linspace(lr, 1, 4, 4)
same(lr, {{1, 2}, {3, 4}})
fails('linspace: invalid number of points (1; needs at least 2, or 1 when both bounds are equal)',
   function() torch.linspace(0, 1, 1) end)
fails('linspace: invalid number of points (0; needs at least 2, or 1 when both bounds are equal)',
   function() torch.linspace(0, 1, 0) end)
fails('linspace: torch.LongTensor does not implement the torch.linspace() function',
   function() torch.linspace(torch.LongTensor(), 0, 1, 2) end)

-- logspace: 10^x at the linspace points
H.same_abs(torch.logspace(0, 3, 4), {1, 10, 100, 1000}, 'torch.DoubleTensor', 1e-9)
same(torch.logspace(2, 2, 1), {100})
assert(torch.logspace(-1, 1):size(1) == 100)
same(torch.logspace(torch.FloatTensor(), 0, 2, 3), {1, 10, 100}, 'torch.FloatTensor')
fails('logspace: invalid number of points (-3; needs at least 2, or 1 when both bounds are equal)',
   function() torch.logspace(0, 1, -3) end)
fails('logspace: torch.IntTensor does not implement the torch.logspace() function',
   function() torch.logspace(torch.IntTensor(), 0, 1, 2) end)

-- every factory follows the default tensor type
torch.setdefaulttensortype('torch.FloatTensor')
for name, t in pairs {
   zeros = torch.zeros(2), ones = torch.ones(2, 2), eye = torch.eye(2), range = torch.range(1, 3),
   linspace = torch.linspace(0, 1, 3), logspace = torch.logspace(0, 1, 2),
} do
   assert(torch.type(t) == 'torch.FloatTensor', name .. ' gave a ' .. torch.type(t))
end
same(torch.range(1, 3), {1, 2, 3}, 'torch.FloatTensor')
torch.setdefaulttensortype('torch.IntTensor')
same(torch.ones(2), {1, 1}, 'torch.IntTensor')
fails('linspace: torch.IntTensor does not implement the torch.linspace() function', function() torch.linspace(0, 1) end)
torch.setdefaulttensortype('torch.DoubleTensor')
assert(torch.type(torch.zeros(1)) == 'torch.DoubleTensor')

-- A size past 2^64 elements names the function and the size (no allocation is tried).
fails('zeros: a tensor of size 10000000000x10000000000 is too large (more than 2^64 elements)', function() torch.zeros(1e10, 1e10) end)
fails('ones: a tensor of size 10000000000x10000000000 is too large (more than 2^64 elements)', function() torch.ones(1e10, 1e10) end)

print('ok')
