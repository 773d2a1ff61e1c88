-- cat in all its forms (default dimension, table form, result first, dimensions past the last)
-- and reshape.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or '') .. 'torch_test_helpers.lua')
local same, fails = H.same, H.fails

-- two tensors; the default dimension is the last one
same(torch.cat(torch.ones(3), torch.zeros(2)), {1, 1, 1, 0, 0}, 'torch.DoubleTensor')
same(torch.cat(torch.ones(2, 2), torch.zeros(2, 3)), {{1, 1, 0, 0, 0}, {1, 1, 0, 0, 0}})
same(torch.cat(torch.ones(2, 2), torch.zeros(1, 2), 1), {{1, 1}, {1, 1}, {0, 0}})
same(torch.cat(torch.ones(1, 2), torch.zeros(1, 2), -1), {{1, 1, 0, 0}})
-- as a method: a new tensor, the receiver untouched
local a = torch.Tensor{{1, 2}, {3, 4}}
local c = a:cat(torch.Tensor{{5}, {6}})
same(c, {{1, 2, 5}, {3, 4, 6}})
same(a, {{1, 2}, {3, 4}})

-- table form
local b = torch.Tensor{{5, 6}}
same(torch.cat({a, b}, 1), {{1, 2}, {3, 4}, {5, 6}})
same(torch.cat({a, b:t(), a}), {{1, 2, 5, 1, 2}, {3, 4, 6, 3, 4}})
same(torch.cat({torch.Tensor{7}}), {7})

-- result first: torch.cat(res, a, b [, dim]), res:cat(a, b [, dim]), torch.cat(res, {...} [, dim])
local res = torch.Tensor()
assert(torch.cat(res, a, b, 1) == res)
same(res, {{1, 2}, {3, 4}, {5, 6}})
local res2 = torch.Tensor(20)
assert(res2:cat(torch.Tensor{1}, torch.Tensor{2}) == res2)
same(res2, {1, 2})
local res3 = torch.Tensor()
assert(torch.cat(res3, {a, a}, 2) == res3)
same(res3, {{1, 2, 1, 2}, {3, 4, 3, 4}})

-- a dimension past an input's last counts as one of size 1
same(torch.cat(torch.Tensor{1, 2, 3}, torch.Tensor{4, 5, 6}, 2), {{1, 4}, {2, 5}, {3, 6}})
same(torch.cat(torch.ones(3, 2), torch.Tensor{7, 8, 9}, 2), {{1, 1, 7}, {1, 1, 8}, {1, 1, 9}})
same(torch.cat(torch.Tensor{1, 2}, torch.Tensor{3, 4}, 3), {{{1, 3}}, {{2, 4}}})

-- empty inputs are skipped; all empty leaves the result alone
same(torch.cat(torch.Tensor(), torch.Tensor{1, 2}), {1, 2})
same(torch.cat({torch.Tensor{1}, torch.Tensor(), torch.Tensor{2}}), {1, 2})
assert(torch.cat(torch.Tensor(), torch.Tensor()):dim() == 0)
local keep = torch.Tensor{9, 9}
torch.cat(keep, torch.Tensor(), torch.Tensor())
same(keep, {9, 9})

-- non-contiguous inputs and result
local at = a:t() -- {{1, 3}, {2, 4}}
same(torch.cat(at, at, 1), {{1, 3}, {2, 4}, {1, 3}, {2, 4}})
local base = torch.zeros(2, 4)
local view = base:t() -- 4x2, keeps its strides when resized to 4x2
torch.cat(view, torch.ones(2, 2), torch.Tensor{{2, 3}, {4, 5}}, 1)
same(view, {{1, 1}, {1, 1}, {2, 3}, {4, 5}})
same(base, {{1, 1, 2, 4}, {1, 1, 3, 5}})

-- the result may be one of the inputs
local x = torch.Tensor{1, 2}
torch.cat(x, x, x)
same(x, {1, 2, 1, 2})

-- other types
same(torch.cat(torch.FloatTensor{1}, torch.FloatTensor{2.5}), {1, 2.5}, 'torch.FloatTensor')
same(torch.cat({torch.LongTensor{1}, torch.LongTensor{2}}), {1, 2}, 'torch.LongTensor')

fails('cat: inconsistent tensor sizes: input 2 is 3x3, but the inputs before it have size 2 in dimension 1 (concatenating along dimension 2)',
   function() torch.cat(torch.ones(2, 2), torch.ones(3, 3)) end)
fails('cat: inconsistent tensor sizes: input 2 is 3, but the inputs before it have size 2 in dimension 1 (concatenating along dimension 2)',
   function() torch.cat(torch.ones(2, 2), torch.ones(3), 2) end)
fails('cat: input 2 is a torch.FloatTensor, expected a torch.DoubleTensor',
   function() torch.cat(torch.ones(2), torch.FloatTensor{1}) end)
fails('cat: input 1 is a torch.DoubleTensor, expected a torch.FloatTensor',
   function() torch.cat(torch.FloatTensor(), torch.ones(1), torch.ones(1)) end)
fails('cat: invalid number of inputs 0 (expected at least one tensor)', function() torch.cat({}) end)
fails('cat: table entry 2 is not a tensor (got number)', function() torch.cat({torch.ones(2), 3}) end)
fails('cat: invalid dimension 0', function() torch.cat(torch.ones(2), torch.ones(2), 0) end)
fails('cat: invalid dimension -2', function() torch.cat({torch.ones(2)}, -2) end)
fails('cat: bad argument #3 (number expected, got string)', function() torch.cat(torch.ones(2), torch.ones(2), 'x') end)
fails('cat: invalid arguments: DoubleTensor\nexpected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor [index] | [*DoubleTensor*] table [index]',
   function() torch.cat(torch.ones(2)) end)
fails('cat: invalid arguments: number number\nexpected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor [index] | [*DoubleTensor*] table [index]',
   function() torch.cat(1, 2) end)

-- reshape: always a contiguous copy
local r = torch.range(1, 6)
local m = torch.reshape(r, 2, 3)
same(m, {{1, 2, 3}, {4, 5, 6}}, 'torch.DoubleTensor')
m[1][1] = 100
assert(r[1] == 1, 'reshape must copy')
same(r:reshape(3, 2), {{1, 2}, {3, 4}, {5, 6}})
same(r:reshape(torch.LongStorage{1, 6}), {{1, 2, 3, 4, 5, 6}})
same(torch.Tensor{{1, 2}, {3, 4}}:t():reshape(4), {1, 3, 2, 4})
local rt = torch.Tensor{{1, 2}, {3, 4}}:t():reshape(2, 2)
assert(rt:isContiguous())
same(rt, {{1, 3}, {2, 4}})
same(torch.IntTensor{1, 2, 3, 4}:reshape(2, 2), {{1, 2}, {3, 4}}, 'torch.IntTensor')
-- result forms
local out = torch.Tensor()
assert(out:reshape(r, 2, 3) == out)
same(out, {{1, 2, 3}, {4, 5, 6}})
local out2 = torch.Tensor(1)
assert(torch.reshape(out2, r, 6) == out2)
same(out2, {1, 2, 3, 4, 5, 6})
fails('reshape: cannot reshape a tensor of 6 elements (6) into size 4x2 (8 elements)', function() r:reshape(4, 2) end)
fails('reshape: invalid size -1', function() r:reshape(-1, 2) end)
fails('reshape: result tensor must be a torch.DoubleTensor (got torch.FloatTensor)',
   function() torch.FloatTensor():reshape(r, 6) end)

print('ok')
