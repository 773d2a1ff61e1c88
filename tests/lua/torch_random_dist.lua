-- The distributions: scalar and tensor forms, defaults, formulas, fill order, integer ranges,
-- errors, and sample moments over 1e5 draws (fixed seeds, so deterministic).
local T = dofile('torch_random_common.lua')
local fails, same, close, moments, flat = T.fails, T.same, T.close, T.moments, T.flat

local function f32(v) return torch.FloatTensor{ v }[1] end

-- Defaults: uniform(0,1), normal(0,1), cauchy(0,1), logNormal(1,2), bernoulli(0.5); a lone
-- argument is the first parameter.
local function same_draw(f, g, what)
   torch.manualSeed(1)
   local a = f()
   torch.manualSeed(1)
   local b = g()
   if torch.isTensor(a) then same(a, b, what) else assert(a == b, what) end
end
same_draw(torch.uniform, function() return torch.uniform(0, 1) end, 'uniform defaults')
same_draw(function() return torch.uniform(5) end, function() return torch.uniform(5, 1) end, 'uniform(a)')
same_draw(torch.normal, function() return torch.normal(0, 1) end, 'normal defaults')
same_draw(function() return torch.normal(3) end, function() return torch.normal(3, 1) end, 'normal(mean)')
same_draw(torch.cauchy, function() return torch.cauchy(0, 1) end, 'cauchy defaults')
same_draw(torch.logNormal, function() return torch.logNormal(1, 2) end, 'logNormal defaults')
same_draw(torch.bernoulli, function() return torch.bernoulli(0.5) end, 'bernoulli default')
same_draw(function() return torch.Tensor(3):uniform() end, function() return torch.Tensor(3):uniform(0, 1) end,
   'x:uniform defaults')

-- Each draw in terms of the 32-bit uniform u of the same seed.
local function u_of(seed, k)
   torch.manualSeed(seed)
   local u
   for _ = 1, k or 1 do u = torch.uniform() end
   return u
end
local u = u_of(2)
torch.manualSeed(2)
assert(torch.uniform(3, 8) == u * (8 - 3) + 3)
torch.manualSeed(2)
close(torch.exponential(2), -1 / 2 * math.log(1 - u), 1e-15, 'exponential')
torch.manualSeed(2)
close(torch.cauchy(1, 2), 1 + 2 * math.tan(math.pi * (u - 0.5)), 1e-12, 'cauchy')
torch.manualSeed(2)
assert(torch.geometric(0.3) == math.floor(math.log(1 - u) / math.log(0.3)) + 1)
torch.manualSeed(2)
assert(torch.bernoulli(0.4) == (u <= 0.4 and 1 or 0))
assert(u == math.floor(u * 2 ^ 32) / 2 ^ 32, 'uniforms have 32-bit resolution')

-- Normal: Box-Muller on two uniforms, cosine half first, the sine half cached for the next call
-- (which draws nothing).
local x, y, third = u_of(4, 1), u_of(4, 2), u_of(4, 3)
local rho = math.sqrt(-2 * math.log(1 - y))
torch.manualSeed(4)
close(torch.normal(1, 2), rho * math.cos(2 * math.pi * x) * 2 + 1, 1e-14, 'normal, first of a pair')
close(torch.normal(1, 2), rho * math.sin(2 * math.pi * x) * 2 + 1, 1e-14, 'normal, cached second')
assert(torch.uniform() == third)
-- tensor fills share the same cache
torch.manualSeed(4)
local first = torch.normal()
local t = torch.Tensor(3):normal()
torch.manualSeed(4)
local seq = { torch.normal(), torch.normal(), torch.normal(), torch.normal() }
assert(first == seq[1])
same(t, { seq[2], seq[3], seq[4] }, 'x:normal continues the pair')
-- logNormal is exp of a normal draw
torch.manualSeed(6)
local n = torch.normal(0.5, 0.25)
torch.manualSeed(6)
close(torch.logNormal(0.5, 0.25), math.exp(n), 1e-14, 'logNormal')

-- Scalar random: raw 32-bit numbers, 1..b, a..b (negative bounds too).
torch.manualSeed(8)
local seen = {}
for _ = 1, 2000 do
   local r = torch.random(-3, 3)
   assert(r >= -3 and r <= 3 and r == math.floor(r))
   seen[r] = true
   local k = torch.random(4)
   assert(k >= 1 and k <= 4 and k == math.floor(k))
   local raw = torch.random()
   assert(raw >= 0 and raw < 2 ^ 32 and raw == math.floor(raw))
end
for r = -3, 3 do assert(seen[r], 'random(-3, 3) never gave ' .. r) end
torch.manualSeed(8)
local raw = torch.random()
torch.manualSeed(8)
assert(torch.random(10) == raw % 10 + 1)
torch.manualSeed(8)
assert(torch.random(-5, 5) == raw % 11 - 5)
-- bounds are C longs: fractions are cut off
torch.manualSeed(8)
assert(torch.random(10.9) == raw % 10 + 1)
assert(torch.random(5, 5) == 5)

-- Tensor forms work in place and return the tensor; torch.f(x, ...) does the same.
local z = torch.Tensor(2, 2)
assert(rawequal(z:uniform(), z) and rawequal(z:normal(), z) and rawequal(z:random(), z))
assert(rawequal(z:bernoulli(), z) and rawequal(z:geometric(0.5), z) and rawequal(z:exponential(1), z))
assert(rawequal(z:cauchy(), z) and rawequal(z:logNormal(), z))
assert(rawequal(torch.uniform(z, 2, 3), z) and rawequal(torch.random(z, 4), z))
assert(rawequal(torch.bernoulli(z, 0.2), z) and rawequal(torch.normal(z, 1, 1), z))
for _, v in ipairs(flat(torch.uniform(z, 2, 3))) do assert(v >= 2 and v < 3) end

-- Fills go in logical order, whatever the strides.
torch.manualSeed(10)
local a = torch.Tensor(3, 4):uniform()
torch.manualSeed(10)
local b = torch.Tensor(4, 3):t():uniform()
assert(not b:isContiguous())
same(a, b, 'transposed fill')
local big = torch.Tensor(5, 5):fill(-1)
local view = big:narrow(2, 2, 3)
torch.manualSeed(10)
view:normal()
torch.manualSeed(10)
same(view, torch.Tensor(5, 3):normal(), 'narrowed fill')
for i = 1, 5 do assert(big[i][1] == -1 and big[i][5] == -1) end
-- an empty tensor draws nothing
torch.manualSeed(10)
torch.Tensor():uniform()
assert(torch.uniform() == u_of(10))

-- A FloatTensor gets its parameters as floats and stores floats.
torch.manualSeed(12)
local ft = torch.FloatTensor(3):uniform(0.1, 0.7)
torch.manualSeed(12)
local fu = torch.uniform()
assert(ft[1] == f32(fu * (f32(0.7) - f32(0.1)) + f32(0.1)))

-- x:random() ranges per type: [0, max] for integer types, [0, 2^mantissa] for Float/Double (a
-- 32-bit draw, so below 2^32 for Long and Double).
local ranges = {
   { 'ByteTensor', 255 }, { 'CharTensor', 127 }, { 'ShortTensor', 32767 }, { 'IntTensor', 2 ^ 31 - 1 },
   { 'LongTensor', 2 ^ 32 - 1 }, { 'FloatTensor', 2 ^ 24 }, { 'DoubleTensor', 2 ^ 32 - 1 },
}
torch.manualSeed(14)
for _, r in ipairs(ranges) do
   local v = flat(torch[r[1]](3000):random())
   local lo, hi = math.huge, -math.huge
   for i = 1, #v do
      assert(v[i] == math.floor(v[i]))
      lo, hi = math.min(lo, v[i]), math.max(hi, v[i])
   end
   assert(lo >= 0 and hi <= r[2], r[1] .. ' random() out of range')
   assert(hi > r[2] / 2, r[1] .. ' random() never reached the upper half')
end
torch.manualSeed(14)
local r1 = torch.random()
torch.manualSeed(14)
assert(torch.ByteTensor(1):random()[1] == r1 % 256)
torch.manualSeed(14)
assert(torch.CharTensor(1):random()[1] == r1 % 128)
torch.manualSeed(14)
assert(torch.FloatTensor(1):random()[1] == f32(r1 % (2 ^ 24 + 1)))
-- x:random(a, b) for every type, negative bounds included for the signed ones
for _, name in ipairs({ 'CharTensor', 'ShortTensor', 'IntTensor', 'LongTensor', 'FloatTensor', 'DoubleTensor' }) do
   local hit = {}
   for _, v in ipairs(flat(torch[name](2000):random(-10, 10))) do
      assert(v >= -10 and v <= 10 and v == math.floor(v), name .. ' random(-10, 10) gave ' .. v)
      hit[v] = true
   end
   for k = -10, 10 do assert(hit[k], name .. ' random(-10, 10) never gave ' .. k) end
   for _, v in ipairs(flat(torch[name](500):random(6))) do assert(v >= 1 and v <= 6) end
end
-- an unsigned byte wraps around as a C conversion does
torch.manualSeed(15)
local hit = {}
for _, v in ipairs(flat(torch.ByteTensor(2000):random(250, 260))) do
   assert((v >= 250 and v <= 255) or v <= 4, 'ByteTensor random(250, 260) gave ' .. v)
   hit[v] = true
end
assert(hit[0] and hit[4] and hit[250] and hit[255])

-- bernoulli with a tensor of probabilities (any shape with as many elements).
torch.manualSeed(16)
same(torch.Tensor(4):bernoulli(torch.Tensor{ 0, 1, 0, 1 }), { 0, 1, 0, 1 }, 'bernoulli(p tensor)')
same(torch.ByteTensor(2, 2):bernoulli(torch.FloatTensor{ 1, 0, 1, 0 }), { 1, 0, 1, 0 }, 'bernoulli(FloatTensor)')
torch.manualSeed(16)
local pb = torch.Tensor(2, 3):fill(0.3)
local viaT = torch.Tensor(6):bernoulli(pb)
torch.manualSeed(16)
same(viaT, torch.Tensor(6):bernoulli(0.3), 'bernoulli(tensor of 0.3)')

-- Errors.
fails('torch.bernoulli: p must be >= 0 and <= 1', torch.bernoulli, 1.5)
fails('torch.bernoulli: p must be >= 0 and <= 1', torch.bernoulli, -0.1)
fails('torch.geometric: p must be > 0 and < 1', torch.geometric, 0)
fails('torch.geometric: p must be > 0 and < 1', torch.geometric, 1)
fails('torch.geometric: bad argument #1 (number expected, got nil)', torch.geometric)
fails('torch.normal: standard deviation must be strictly positive', torch.normal, 0, 0)
fails('torch.normal: standard deviation must be strictly positive', torch.normal, 0, -1)
fails('torch.logNormal: standard deviation must be strictly positive', torch.logNormal, 1, 0)
fails('torch.random: upper bound must be larger than lower bound', torch.random, 5, 1)
fails('torch.random: upper bound must be strictly positive', torch.random, 0)
fails('torch.random: upper bound must be strictly positive', torch.random, -2)
fails('torch.random: bad argument #3 (no more arguments expected, got number)', torch.random, 1, 2, 3)
fails('torch.exponential: bad argument #1 (number expected, got nil)', torch.exponential)
fails('torch.uniform: bad argument #1 (number expected, got string)', torch.uniform, 'a')
fails('torch.uniform: bad argument #3 (no more arguments expected, got number)', torch.uniform, 1, 2, 3)
local v = torch.Tensor(3)
fails('bernoulli: p must be >= 0 and <= 1', function() v:bernoulli(2) end)
fails('bernoulli: p must be >= 0 and <= 1 (got 2)', function() v:bernoulli(torch.Tensor{ 0.5, 2, 0 }) end)
fails('bernoulli: inconsistent tensor size', function() v:bernoulli(torch.Tensor{ 0.5, 0.5 }) end)
fails('random: upper bound must be larger than lower bound', function() v:random(3, 1) end)
fails('random: upper bound must be strictly positive', function() v:random(0) end)
fails('normal: standard deviation must be strictly positive', function() v:normal(0, 0) end)
fails('logNormal: standard deviation must be strictly positive', function() v:logNormal(0, -2) end)
fails('geometric: p must be > 0 and < 1', function() v:geometric(1) end)
fails('geometric: bad argument #2 (number expected, got nil)', function() v:geometric() end)
fails('uniform: not available for torch.IntTensor (only for Float and Double tensors)',
   function() torch.IntTensor(3):uniform() end)
fails('normal: not available for torch.LongTensor', function() torch.LongTensor(3):normal() end)
fails('exponential: not available for torch.ByteTensor', function() torch.exponential(torch.ByteTensor(2), 1) end)
fails('uniform: bad argument #1 (tensor expected, got number)', function() torch.DoubleTensor.uniform(5) end)
fails('uniform: bad argument #4 (no more arguments expected, got number)', function() v:uniform(1, 2, 3) end)
-- a bad probability tensor leaves the target untouched
v:fill(7)
pcall(v.bernoulli, v, torch.Tensor{ 0.5, 2, 0 })
same(v, { 7, 7, 7 }, 'after a failed bernoulli')

-- Sample moments over 1e5 draws.
local N = 100000
local function check(name, t, mean, var, tol_mean, tol_var)
   local m, s2 = moments(t)
   close(m, mean, tol_mean, name .. ' mean')
   close(s2, var, tol_var, name .. ' variance')
end
torch.manualSeed(2024)
check('uniform(-1, 3)', torch.Tensor(N):uniform(-1, 3), 1, 16 / 12, 0.02, 0.02)
check('normal(2, 3)', torch.Tensor(N):normal(2, 3), 2, 9, 0.05, 0.15)
check('FloatTensor normal', torch.FloatTensor(N):normal(), 0, 1, 0.02, 0.02)
check('exponential(2)', torch.Tensor(N):exponential(2), 0.5, 0.25, 0.01, 0.01)
check('logNormal(0, 0.5)', torch.Tensor(N):logNormal(0, 0.5), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25),
   0.01, 0.02)
check('bernoulli(0.3)', torch.Tensor(N):bernoulli(0.3), 0.3, 0.21, 0.01, 0.01)
-- Torch's geometric(p): P(i) = (1-p) p^(i-1), mean 1/(1-p), variance p/(1-p)^2
check('geometric(0.25)', torch.Tensor(N):geometric(0.25), 4 / 3, 0.25 / 0.5625, 0.01, 0.02)
check('random(1, 6)', torch.Tensor(N):random(1, 6), 3.5, 35 / 12, 0.02, 0.03)
check('randn', torch.randn(N), 0, 1, 0.02, 0.02)
check('rand', torch.rand(N), 0.5, 1 / 12, 0.01, 0.01)
-- Cauchy has no moments: half its mass is within sigma of the median.
local c = flat(torch.Tensor(N):cauchy(1, 2))
local inside = 0
for i = 1, N do if math.abs(c[i] - 1) < 2 then inside = inside + 1 end end
close(inside / N, 0.5, 0.01, 'cauchy mass within sigma')
-- scalar forms give the same distribution
local s, s2 = 0, 0
for _ = 1, N do
   local d = torch.normal(-1, 0.5)
   s, s2 = s + d, s2 + d * d
end
close(s / N, -1, 0.01, 'torch.normal mean')
close(s2 / N - (s / N) ^ 2, 0.25, 0.01, 'torch.normal variance')

print('ok')
