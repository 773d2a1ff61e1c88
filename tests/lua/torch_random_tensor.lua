-- torch.rand, torch.randn, torch.randperm, torch.multinomial: forms, result types, draw order,
-- errors.
local T = dofile('torch_random_common.lua')
local fails, same, close, flat = T.fails, T.same, T.close, T.flat

-- rand/randn: a new tensor of the default type, filled as uniform()/normal() would be drawn.
torch.manualSeed(1)
local r = torch.rand(2, 3)
assert(torch.type(r) == 'torch.DoubleTensor' and r:dim() == 2 and r:size(1) == 2 and r:size(2) == 3)
torch.manualSeed(1)
local want = {}
for i = 1, 6 do want[i] = torch.uniform() end
same(r, want, 'rand')
torch.manualSeed(1)
local rn = torch.randn(5)
torch.manualSeed(1)
want = {}
for i = 1, 5 do want[i] = torch.normal() end
same(rn, want, 'randn')

-- sizes as a LongStorage, a result tensor first, a type name last, a method form
local ls = torch.rand(torch.LongStorage{ 2, 1, 3 })
assert(ls:dim() == 3 and ls:nElement() == 6)
local res = torch.FloatTensor(7)
assert(rawequal(torch.rand(res, 2, 2), res) and res:dim() == 2 and res:nElement() == 4)
assert(rawequal(torch.randn(res, 3), res) and res:dim() == 1 and res:size(1) == 3)
assert(torch.type(torch.rand(3, 'torch.FloatTensor')) == 'torch.FloatTensor')
assert(torch.type(torch.randn(2, 2, 'torch.FloatTensor')) == 'torch.FloatTensor')
local m = torch.Tensor()
assert(rawequal(m:rand(4), m) and m:size(1) == 4)
assert(rawequal(m:randn(2, 3), m) and m:size(2) == 3)
torch.setdefaulttensortype('torch.FloatTensor')
assert(torch.type(torch.rand(2)) == 'torch.FloatTensor')
assert(torch.type(torch.randperm(3)) == 'torch.FloatTensor')
torch.setdefaulttensortype('torch.DoubleTensor')
assert(torch.rand():dim() == 0)
for _, v in ipairs(flat(torch.rand(1000))) do assert(v >= 0 and v < 1) end

fails('torch.rand: not available for torch.IntTensor (only for Float and Double tensors)', torch.rand,
   torch.IntTensor(), 3)
fails('torch.randn: not available for torch.LongTensor', torch.randn, 3, 'torch.LongTensor')
fails('torch.rand: invalid size -1', torch.rand, 2, -1)
fails('torch.rand: unknown tensor type torch.BogusTensor', torch.rand, 2, 'torch.BogusTensor')
fails('torch.rand: a type name cannot follow a result tensor', torch.rand, torch.Tensor(), 2, 'torch.FloatTensor')
torch.setdefaulttensortype('torch.IntTensor')
local ok, err = pcall(torch.randn, 2)
torch.setdefaulttensortype('torch.DoubleTensor')
assert(not ok and err:find('torch.randn: not available for torch.IntTensor', 1, true), err)

-- randperm: 1..n shuffled by Torch's swaps, in the default type.
torch.manualSeed(3)
local p = torch.randperm(8)
assert(torch.type(p) == 'torch.DoubleTensor' and p:dim() == 1 and p:size(1) == 8)
torch.manualSeed(3)
local ref = {}
for i = 0, 7 do ref[i] = i end
for i = 0, 6 do
   local z = torch.random() % (8 - i)
   ref[i], ref[i + z] = ref[i + z], ref[i]
end
for i = 1, 8 do assert(p[i] == ref[i - 1] + 1, 'randperm element ' .. i) end
local counts = {}
for _, v in ipairs(flat(torch.randperm(100))) do counts[v] = (counts[v] or 0) + 1 end
for i = 1, 100 do assert(counts[i] == 1, 'randperm(100) misses ' .. i) end
same(torch.randperm(1), { 1 }, 'randperm(1)')
assert(torch.type(torch.randperm(5, 'torch.LongTensor')) == 'torch.LongTensor')
local pres = torch.LongTensor()
assert(rawequal(torch.randperm(pres, 4), pres) and pres:size(1) == 4)
assert(rawequal(pres:randperm(6), pres) and pres:size(1) == 6)
fails('torch.randperm: n must be strictly positive', torch.randperm, 0)
fails('torch.randperm: n must be strictly positive', torch.randperm, -3)
fails('torch.randperm: bad argument #1 (number expected, got nil)', torch.randperm)

-- multinomial: 1-based LongTensor indices, vectors and matrices, with and without replacement.
torch.manualSeed(4)
local probs = torch.Tensor{ 1, 1, 0.5, 0 }
local draws = torch.multinomial(probs, 100000, true)
assert(torch.type(draws) == 'torch.LongTensor' and draws:dim() == 1 and draws:size(1) == 100000)
local freq = { 0, 0, 0, 0 }
for _, v in ipairs(flat(draws)) do freq[v] = freq[v] + 1 end
close(freq[1] / 100000, 0.4, 0.01, 'category 1')
close(freq[2] / 100000, 0.4, 0.01, 'category 2')
close(freq[3] / 100000, 0.2, 0.01, 'category 3')
assert(freq[4] == 0, 'a zero weight was drawn')

-- without replacement (the default) every row is a set of distinct categories
local rows = torch.Tensor{ { 1, 2, 3, 4, 5 }, { 5, 4, 3, 2, 1 }, { 0, 0, 1, 1, 1 } }
local out = torch.multinomial(rows, 3)
assert(out:dim() == 2 and out:size(1) == 3 and out:size(2) == 3)
for i = 1, 3 do
   local seen = {}
   for j = 1, 3 do
      local k = out[i][j]
      assert(k >= 1 and k <= 5 and not seen[k])
      seen[k] = true
   end
end
local seen = {}
for j = 1, 3 do seen[out[3][j]] = true end
assert(seen[3] and seen[4] and seen[5], 'row 3 can only give 3, 4 and 5')
-- drawing every category gives a permutation
local all = flat(torch.multinomial(torch.Tensor{ 0.1, 0.2, 0.3, 0.4 }, 4))
table.sort(all)
same(all, { 1, 2, 3, 4 }, 'all categories')

-- the first draw is the first bucket whose cumulative weight reaches a uniform draw
torch.manualSeed(5)
local u = torch.uniform()
torch.manualSeed(5)
local k = torch.multinomial(torch.Tensor{ 0.2, 0.3, 0.5 }, 1)[1]
local expect = u <= 0.2 and 1 or (u <= 0.5 and 2 or 3)
assert(k == expect, 'first draw ' .. k .. ' for u = ' .. u)

-- result tensor forms (Torch's p.multinomial(res, p, n)), a method on the probabilities, and
-- weights in any layout
local mres = torch.LongTensor()
assert(rawequal(torch.multinomial(mres, probs, 5, true), mres) and mres:size(1) == 5)
assert(rawequal(probs.multinomial(mres, probs, 3), mres) and mres:size(1) == 3)
assert(torch.type(probs:multinomial(2)) == 'torch.LongTensor')
assert(torch.type(torch.FloatTensor{ 1, 2 }:multinomial(2)) == 'torch.LongTensor')
local grid = torch.Tensor(4, 2):fill(0)
grid[3][1] = 1
for _, v in ipairs(flat(torch.multinomial(grid:select(2, 1), 6, true))) do assert(v == 3) end
local tr = torch.Tensor(3, 2):fill(0)
tr[1][2] = 1 -- the transpose's row 2 puts all its weight on category 1
tr[3][1] = 1 -- row 1 on category 3
same(torch.multinomial(tr:t(), 2, true), { 3, 3, 1, 1 }, 'transposed weights')

fails('torch.multinomial: cannot sample n_sample <= 0 samples', torch.multinomial, probs, 0)
fails('torch.multinomial: cannot sample n_sample > prob_dist:size(1) samples without replacement',
   torch.multinomial, probs, 5)
fails('torch.multinomial: invalid multinomial distribution (sum of probabilities <= 0)', torch.multinomial,
   torch.Tensor{ 0, 0 }, 1)
fails('torch.multinomial: invalid multinomial distribution (encountering probability entry < 0)',
   torch.multinomial, torch.Tensor{ 1, -1, 1 }, 1)
fails('torch.multinomial: prob_dist must be 1 or 2 dim', torch.multinomial, torch.Tensor(2, 2, 2):fill(1), 1)
fails('torch.multinomial: prob_dist must be 1 or 2 dim', torch.multinomial, torch.Tensor(), 1)
fails('torch.multinomial: bad argument #1 (torch.LongTensor expected, got torch.IntTensor)', torch.multinomial,
   torch.IntTensor(), probs, 1)
fails('torch.multinomial: bad argument #3 (boolean expected, got number)', torch.multinomial, probs, 1, 1)
fails('torch.multinomial: bad argument #2 (number expected, got nil)', torch.multinomial, probs)
fails('torch.multinomial: bad argument #1 (tensor expected, got number)', torch.multinomial, 3, 1)

print('ok')
