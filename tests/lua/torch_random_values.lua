-- Prints draws, one number a line (%.17g, so every double reads back exactly), for
-- tests/torch_random.rs to compare with its own reference implementation of Torch's algorithms.
-- The order of the lines is the contract with that test.
local function p(v) io.write(string.format('%.17g\n', v)) end
local function each(t)
   -- logical (row-major) order, whatever the strides
   if t:dim() == 1 then
      for i = 1, t:size(1) do p(t[i]) end
   else
      for i = 1, t:size(1) do each(t[i]) end
   end
end

-- raw 32-bit outputs across a regeneration of the 624-word state
torch.manualSeed(2024)
for _ = 1, 700 do p(torch.random()) end

-- scalar forms
torch.manualSeed(7)
for _ = 1, 5 do p(torch.uniform()) end
for _ = 1, 5 do p(torch.uniform(-2, 3)) end
for _ = 1, 5 do p(torch.normal()) end
p(torch.normal(10, 2)) -- the cached sine half of the third pair
for _ = 1, 4 do p(torch.exponential(1.5)) end
for _ = 1, 4 do p(torch.cauchy(1, 2)) end
for _ = 1, 4 do p(torch.logNormal(0.5, 0.25)) end
for _ = 1, 6 do p(torch.geometric(0.3)) end
for _ = 1, 6 do p(torch.bernoulli(0.4)) end
for _ = 1, 6 do p(torch.random(10)) end
for _ = 1, 6 do p(torch.random(-5, 5)) end

-- tensor forms
torch.manualSeed(99)
each(torch.DoubleTensor(3, 4):normal(1, 3))
each(torch.FloatTensor(5):uniform(-1, 1))
each(torch.DoubleTensor(4, 3):t():uniform()) -- a 3x4 transposed view, filled in its own order
each(torch.ByteTensor(4):random())
each(torch.CharTensor(4):random())
each(torch.ShortTensor(4):random())
each(torch.IntTensor(4):random())
each(torch.LongTensor(4):random())
each(torch.FloatTensor(4):random())
each(torch.DoubleTensor(4):random())
each(torch.IntTensor(6):random(-3, 3))
each(torch.DoubleTensor(6):random(100))

-- permutations and multinomial draws
torch.manualSeed(5)
each(torch.randperm(10))
each(torch.multinomial(torch.Tensor{{1, 2, 3, 4}, {4, 0, 1, 1}}, 3))
each(torch.multinomial(torch.Tensor{0.1, 0.6, 0.3}, 8, true))
