-- index, indexCopy, indexAdd, indexFill with exact values, every argument form and the errors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or '') .. 'torch_test_helpers.lua')
local same, fails = H.same, H.fails
local L = torch.LongTensor

local x = torch.Tensor{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}

-- index: x:index(dim, idx) is a new tensor; x is untouched
local r = x:index(1, L{3, 1, 3})
same(r, {{7, 8, 9}, {1, 2, 3}, {7, 8, 9}}, 'torch.DoubleTensor')
same(x, {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}})
r[1][1] = 100
assert(x[3][1] == 7, 'index result shares memory with its source')
same(x:index(2, L{2}), {{2}, {5}, {8}})
same(x:index(2, L{3, 1}), {{3, 1}, {6, 4}, {9, 7}})

-- res:index(src, dim, idx) writes into res and returns it
local res = torch.Tensor()
assert(res:index(x, 2, L{3, 1}) == res)
same(res, {{3, 1}, {6, 4}, {9, 7}})
local big = torch.Tensor(10):fill(1)
assert(big:index(x, 1, L{2}) == big)
same(big, {{4, 5, 6}})

-- torch.index in both forms
same(torch.index(x, 1, L{2}), {{4, 5, 6}})
local res2 = torch.Tensor()
assert(torch.index(res2, x, 1, L{1}) == res2)
same(res2, {{1, 2, 3}})

-- non-contiguous source, non-contiguous index, non-contiguous result
local xt = x:t()
same(xt:index(1, L{1, 3}), {{1, 4, 7}, {3, 6, 9}})
same(xt:index(2, L{2}), {{4}, {5}, {6}})
local li = L{{1, 2}, {3, 1}}
same(x:index(1, li:select(2, 1)), {{1, 2, 3}, {7, 8, 9}})
local nres = torch.zeros(3, 2):t()
nres:index(x, 1, L{3, 2})
same(nres, {{7, 8, 9}, {4, 5, 6}})
assert(not nres:isContiguous())
local nres2 = torch.zeros(2, 3):t()
nres2:index(x, 2, L{3, 1})
same(nres2, {{3, 1}, {6, 4}, {9, 7}})
assert(not nres2:isContiguous())

-- 1-D sources (contiguous and strided), other types
same(torch.FloatTensor{10, 20, 30, 40}:index(1, L{4, 4, 1}), {40, 40, 10}, 'torch.FloatTensor')
same(x:select(2, 2):index(1, L{3, 1}), {8, 2})
same(L{5, 6, 7}:index(1, L{2}), {6}, 'torch.LongTensor')
same(torch.ByteTensor{1, 2, 3}:index(1, L{3, 3}), {3, 3}, 'torch.ByteTensor')

-- 3-D along the middle dimension
local z = torch.range(1, 24):resize(2, 3, 4)
same(z:index(2, L{3, 1}), {{{9, 10, 11, 12}, {1, 2, 3, 4}}, {{21, 22, 23, 24}, {13, 14, 15, 16}}})
same(z:index(3, L{4}), {{{4}, {8}, {12}}, {{16}, {20}, {24}}})

-- the result may be the source itself
local x2 = x:clone()
x2:index(x2, 1, L{3, 1})
same(x2, {{7, 8, 9}, {1, 2, 3}})

-- index errors
fails('index: bad argument #3 (the index must be a torch.LongTensor, got torch.DoubleTensor)',
   function() return x:index(1, torch.Tensor{1}) end)
fails('index: bad argument #3 (the index must be a torch.LongTensor, got table)',
   function() return x:index(1, {1}) end)
fails('index: bad argument #4 (the index must be a torch.LongTensor, got torch.IntTensor)',
   function() return torch.Tensor():index(x, 1, torch.IntTensor{1}) end)
fails('index: index 4 out of range for dimension 1 of size 3', function() return x:index(1, L{1, 4}) end)
fails('index: index 0 out of range for dimension 2 of size 3', function() return x:index(2, L{1, 0}) end)
fails('index: index -1 out of range for dimension 1 of size 3', function() return x:index(1, L{-1}) end)
fails('index: dimension 3 out of range of 2D tensor', function() return x:index(3, L{1}) end)
fails('index: dimension 0 out of range of 2D tensor', function() return x:index(0, L{1}) end)
fails('index: bad argument #2 (number expected, got nil)', function() return x:index(nil, L{1}) end)
fails('index: the index must be a vector (got a 2D tensor)', function() return x:index(1, L{{1}}) end)
fails('index: the source tensor is empty', function() return torch.Tensor():index(1, L{1}) end)
fails('index: result tensor must be a torch.DoubleTensor (got torch.FloatTensor)',
   function() return torch.FloatTensor():index(x, 1, L{1}) end)

-- indexCopy: in place, returns the receiver
local t = torch.zeros(3, 4)
assert(t:indexCopy(1, L{3, 1}, torch.Tensor{{1, 2, 3, 4}, {5, 6, 7, 8}}) == t)
same(t, {{5, 6, 7, 8}, {0, 0, 0, 0}, {1, 2, 3, 4}})
-- along dimension 2 of a transposed (non-contiguous) target
local base = torch.zeros(4, 3)
base:t():indexCopy(2, L{4, 2}, torch.Tensor{{1, 2}, {3, 4}, {5, 6}})
same(base, {{0, 0, 0}, {2, 4, 6}, {0, 0, 0}, {1, 3, 5}})
-- non-contiguous source
local t2 = torch.zeros(2, 2)
t2:indexCopy(1, L{2, 1}, torch.Tensor{{1, 2}, {3, 4}}:t())
same(t2, {{2, 4}, {1, 3}})
-- the source may share memory with the target (slice by slice, as Torch does)
local w = torch.Tensor{{1, 2, 3}, {4, 5, 6}}
w:indexCopy(2, L{1}, w:narrow(2, 3, 1))
same(w, {{3, 2, 3}, {6, 5, 6}})
-- slices only need the same number of elements
local t4 = torch.zeros(2, 4)
t4:indexCopy(1, L{2}, torch.Tensor{{{1, 2}, {3, 4}}})
same(t4, {{0, 0, 0, 0}, {1, 2, 3, 4}})
-- 1-D and integer types; torch.indexCopy works in place too
local v = torch.IntTensor(5):zero()
assert(torch.indexCopy(v, 1, L{5, 1}, torch.IntTensor{9, 8}) == v)
same(v, {8, 0, 0, 0, 9}, 'torch.IntTensor')

fails('indexCopy: number of indices (1) should be equal to source:size(1) (2)',
   function() t:indexCopy(1, L{1}, torch.Tensor{{1, 2, 3, 4}, {5, 6, 7, 8}}) end)
fails('indexCopy: index 4 out of range for dimension 1 of size 3',
   function() t:indexCopy(1, L{4, 1}, torch.Tensor{{1, 2, 3, 4}, {5, 6, 7, 8}}) end)
fails('indexCopy: inconsistent tensor sizes: slices of the 3x4 tensor along dimension 1 have 4 elements, slices of the 1x3 source have 3',
   function() t:indexCopy(1, L{1}, torch.Tensor{{1, 2, 3}}) end)
fails('indexCopy: bad argument #4 (source must be a torch.DoubleTensor, got torch.FloatTensor)',
   function() t:indexCopy(1, L{1}, torch.FloatTensor{{1, 2, 3, 4}}) end)
fails('indexCopy: bad argument #4 (tensor expected, got number)', function() t:indexCopy(1, L{1}, 5) end)
fails('indexCopy: bad argument #3 (the index must be a torch.LongTensor, got torch.DoubleTensor)',
   function() t:indexCopy(1, torch.Tensor{1}, torch.Tensor{{1, 2, 3, 4}}) end)
fails('indexCopy: dimension 2 out of range of the 1D source',
   function() t:indexCopy(2, L{1}, torch.Tensor{1, 2, 3}) end)

-- indexAdd: repeated indices accumulate
local acc = torch.zeros(3)
assert(acc:indexAdd(1, L{1, 1, 3}, torch.Tensor{1, 2, 3}) == acc)
same(acc, {3, 0, 3})
local acc2 = torch.ones(2, 3)
acc2:indexAdd(2, L{3, 3}, torch.Tensor{{1, 2}, {3, 4}})
same(acc2, {{1, 1, 4}, {1, 1, 8}})
local acc3 = torch.ones(3, 2)
acc3:t():indexAdd(1, L{2}, torch.Tensor{{10, 20, 30}})
same(acc3, {{1, 11}, {1, 21}, {1, 31}})
-- integer addition wraps as in C
same(torch.ByteTensor{250}:indexAdd(1, L{1}, torch.ByteTensor{10}), {4}, 'torch.ByteTensor')
same(torch.indexAdd(torch.LongTensor{1, 2}, 1, L{2}, torch.LongTensor{5}), {1, 7})
fails('indexAdd: index 3 out of range for dimension 1 of size 2',
   function() acc2:indexAdd(1, L{3}, torch.Tensor{{1, 2, 3}}) end)
fails('indexAdd: number of indices (2) should be equal to source:size(1) (1)',
   function() acc2:indexAdd(1, L{1, 2}, torch.Tensor{{1, 2, 3}}) end)

-- indexFill
local f = torch.zeros(3, 3)
assert(f:indexFill(2, L{1, 3}, -1) == f)
same(f, {{-1, 0, -1}, {-1, 0, -1}, {-1, 0, -1}})
f:t():indexFill(1, L{2}, 5)
same(f, {{-1, 5, -1}, {-1, 5, -1}, {-1, 5, -1}})
same(torch.indexFill(torch.FloatTensor(4):zero(), 1, L{4, 2}, 2.5), {0, 2.5, 0, 2.5}, 'torch.FloatTensor')
same(torch.IntTensor(2):zero():indexFill(1, L{1}, 3.9), {3, 0})
fails('indexFill: bad argument #4 (number expected, got nil)', function() f:indexFill(1, L{1}) end)
fails('indexFill: index 9 out of range for dimension 1 of size 3', function() f:indexFill(1, L{9}, 0) end)
fails('indexFill: dimension 3 out of range of 2D tensor', function() f:indexFill(3, L{1}, 0) end)
fails('indexFill: the index must be a vector (got a 2D tensor)', function() f:indexFill(1, L{{1}}, 0) end)

print('ok')
