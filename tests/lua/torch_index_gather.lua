-- gather, scatter (tensor and number sources), scatterAdd and nonzero.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or '') .. 'torch_test_helpers.lua')
local same, fails = H.same, H.fails
local L = torch.LongTensor

local src = torch.Tensor{{1, 2, 3}, {4, 5, 6}}

-- gather along dim 1: out[i][j] = src[idx[i][j]][j]; the result has the index's size
local g = src:gather(1, L{{2, 1, 2}, {1, 1, 1}, {2, 2, 2}})
same(g, {{4, 2, 6}, {1, 2, 3}, {4, 5, 6}}, 'torch.DoubleTensor')
-- along dim 2: out[i][j] = src[i][idx[i][j]]
same(src:gather(2, L{{3, 1}, {2, 2}}), {{3, 1}, {5, 5}})
same(torch.gather(src, 2, L{{3}, {1}}), {{3}, {4}})
-- result forms
local res = torch.Tensor(7)
assert(res:gather(src, 2, L{{3, 1}, {2, 2}}) == res)
same(res, {{3, 1}, {5, 5}})
local res2 = torch.Tensor()
assert(torch.gather(res2, src, 1, L{{2, 2, 1}}) == res2)
same(res2, {{4, 5, 3}})
-- non-contiguous source and index
local st = src:t() -- {{1, 4}, {2, 5}, {3, 6}}
same(st:gather(2, L{{2}, {1}, {2}}), {{4}, {2}, {6}})
local idx = L{{1, 2, 1}, {2, 1, 2}}:t() -- {{1, 2}, {2, 1}, {1, 2}}
same(st:gather(2, idx), {{1, 4}, {5, 2}, {3, 6}})
-- 1-D and other types
same(torch.IntTensor{5, 6, 7}:gather(1, L{3, 3, 1, 2}), {7, 7, 5, 6}, 'torch.IntTensor')
-- 3-D
local z = torch.range(1, 8):resize(2, 2, 2)
same(z:gather(3, L{{{2}, {1}}, {{1}, {2}}}), {{{2}, {3}}, {{5}, {8}}})
-- result sharing memory with the source
local s2 = src:clone()
s2:gather(s2, 2, L{{3, 2, 1}, {1, 1, 1}})
same(s2, {{3, 2, 1}, {4, 4, 4}})

fails('gather: index 4 out of range for dimension 2 of size 3', function() src:gather(2, L{{4}, {1}}) end)
fails('gather: index 0 out of range for dimension 1 of size 2', function() src:gather(1, L{{1, 0, 1}}) end)
fails('gather: the index must have as many dimensions as the source (1 vs 2)', function() src:gather(1, L{1, 2}) end)
fails('gather: inconsistent tensor size: the index is 1x2 and the source is 2x3, which differ in dimension 2',
   function() src:gather(1, L{{1, 1}}) end)
fails('gather: bad argument #3 (the index must be a torch.LongTensor, got torch.DoubleTensor)',
   function() src:gather(1, torch.Tensor{{1, 1, 1}}) end)
fails('gather: dimension 3 out of range of 2D tensor', function() src:gather(3, L{{1, 1, 1}}) end)
fails('gather: result tensor must be a torch.DoubleTensor (got torch.LongTensor)',
   function() L():gather(src, 1, L{{1, 1, 1}}) end)

-- scatter: out[idx[i][j]][j] = src[i][j] (dim 1), in place, returns the receiver
local t = torch.zeros(3, 3)
assert(t:scatter(1, L{{3, 1, 2}}, torch.Tensor{{7, 8, 9}}) == t)
same(t, {{0, 8, 0}, {0, 0, 9}, {7, 0, 0}})
local t2 = torch.zeros(2, 4)
t2:scatter(2, L{{4, 1}, {2, 3}}, torch.Tensor{{1, 2, 99}, {3, 4, 99}})
same(t2, {{2, 0, 0, 1}, {0, 3, 4, 0}})
-- number source
same(torch.zeros(2, 4):scatter(2, L{{1, 4}, {2, 2}}, 5), {{5, 0, 0, 5}, {0, 5, 0, 0}})
same(torch.scatter(torch.IntTensor(3):zero(), 1, L{3}, 2.7), {0, 0, 2}, 'torch.IntTensor')
-- non-contiguous target (a transposed view writes through to its base)
local base = torch.zeros(3, 2)
base:t():scatter(2, L{{3}, {1}}, torch.Tensor{{1}, {2}})
same(base, {{0, 2}, {0, 0}, {1, 0}})
-- non-contiguous source
local t3 = torch.zeros(2, 2)
t3:scatter(1, L{{2, 1}, {1, 2}}, torch.Tensor{{1, 2}, {3, 4}}:t())
same(t3, {{2, 3}, {1, 4}})

-- scatterAdd accumulates repeated indices
local sa = torch.zeros(2, 2)
assert(sa:scatterAdd(2, L{{1, 1}, {2, 1}}, torch.Tensor{{1, 2}, {3, 4}}) == sa)
same(sa, {{3, 0}, {4, 3}})

fails('scatter: index 4 out of range for dimension 1 of size 3',
   function() t:scatter(1, L{{4, 1, 1}}, torch.Tensor{{1, 2, 3}}) end)
fails('scatter: index 0 out of range for dimension 2 of size 4', function() t2:scatter(2, L{{0}, {1}}, 1) end)
fails('scatter: the index has 2 elements along dimension 1, more than the source\'s 1',
   function() t:scatter(1, L{{1, 1, 1}, {2, 2, 2}}, torch.Tensor{{1, 2, 3}}) end)
fails('scatter: inconsistent tensor size: the index is 1x2 and the tensor is 3x3, which differ in dimension 2',
   function() t:scatter(1, L{{1, 1}}, torch.Tensor{{1, 2}}) end)
fails('scatter: inconsistent tensor size: the source is 1x2 and the tensor is 3x3, which differ in dimension 2',
   function() t:scatter(1, L{{1, 1, 1}}, torch.Tensor{{1, 2}}) end)
fails('scatter: the index must have as many dimensions as the tensor (1 vs 2)', function() t:scatter(1, L{1}, 0) end)
fails('scatter: bad argument #4 (source must be a torch.DoubleTensor, got torch.FloatTensor)',
   function() t:scatter(1, L{{1, 1, 1}}, torch.FloatTensor{{1, 2, 3}}) end)
fails('scatter: bad argument #4 (tensor or number expected, got string)', function() t:scatter(1, L{{1, 1, 1}}, 'x') end)
fails('scatter: bad argument #3 (the index must be a torch.LongTensor, got torch.ByteTensor)',
   function() t:scatter(1, torch.ByteTensor{{1, 1, 1}}, 0) end)
fails('scatterAdd: bad argument #4 (tensor expected, got number)', function() sa:scatterAdd(1, L{{1, 1}}, 1) end)

-- nonzero: an N x dim LongTensor of 1-based coordinates in logical order
local m = torch.Tensor{{0, 1}, {2, 0}, {0, 3}}
same(torch.nonzero(m), {{1, 2}, {2, 1}, {3, 2}}, 'torch.LongTensor')
same(m:nonzero(), {{1, 2}, {2, 1}, {3, 2}}, 'torch.LongTensor')
same(torch.Tensor{0, 5, 0, 7}:nonzero(), {{2}, {4}})
same(m:t():nonzero(), {{1, 2}, {2, 1}, {2, 3}})
same(torch.ByteTensor{{{0, 1}}, {{1, 0}}}:nonzero(), {{1, 1, 2}, {2, 1, 1}})
same(L{0, -3}:nonzero(), {{2}})
-- NaN is non-zero, -0 is zero
same(torch.Tensor{0 / 0, 0, -0.0}:nonzero(), {{1}})
-- nothing non-zero, or an empty input: an empty LongTensor
assert(torch.zeros(3):nonzero():dim() == 0)
assert(torch.Tensor():nonzero():dim() == 0)
-- result forms
local r = L()
assert(r:nonzero(m) == r)
same(r, {{1, 2}, {2, 1}, {3, 2}})
local r2 = L(1)
assert(torch.nonzero(r2, torch.FloatTensor{1, 0, 1}) == r2)
same(r2, {{1}, {3}})
fails('nonzero: result tensor must be a torch.LongTensor (got torch.FloatTensor)',
   function() torch.FloatTensor():nonzero(m) end)
fails('nonzero: bad argument #1 (tensor expected, got number)', function() torch.nonzero(5) end)

print('ok')
