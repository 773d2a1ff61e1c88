-- Seeds, raw state, torch.Generator objects.
local T = dofile('torch_random_common.lua')
local fails, same = T.fails, T.same

local function f14(v) return string.format('%.14g', v) end

-- The values in Torch's documentation.
torch.manualSeed(123)
assert(f14(torch.uniform()) == '0.69646918727085')
assert(f14(torch.uniform()) == '0.71295532141812')
assert(f14(torch.uniform()) == '0.28613933874294')
assert(torch.initialSeed() == 123)
torch.manualSeed(torch.initialSeed())
assert(f14(torch.uniform()) == '0.69646918727085')

-- The seed is a C long: fractions are cut off, negative seeds are kept as given, and only the low
-- 32 bits reach the state.
torch.manualSeed(1.9)
local a = torch.random()
torch.manualSeed(1)
assert(torch.random() == a and torch.initialSeed() == 1)
torch.manualSeed(-1)
assert(torch.initialSeed() == -1)
a = torch.random()
torch.manualSeed(4294967295)
assert(torch.random() == a)
torch.manualSeed(2 ^ 32 + 5)
a = torch.random()
torch.manualSeed(5)
assert(torch.random() == a)

-- torch.seed() reseeds from /dev/urandom and returns a seed that reproduces the stream.
local s = torch.seed()
assert(type(s) == 'number' and s >= 0 and s < 2 ^ 53 and s == math.floor(s))
assert(torch.initialSeed() == s)
local u = torch.uniform()
torch.manualSeed(s)
assert(torch.uniform() == u)

-- Reseeding forgets the cached second normal.
torch.manualSeed(3)
local n1 = torch.normal()
torch.manualSeed(3)
assert(torch.normal() == n1)

-- State round trip, including a cached normal.
torch.manualSeed(11)
torch.normal()
local state = torch.getRNGState()
assert(torch.type(state) == 'torch.ByteTensor' and state:dim() == 1 and state:size(1) == 5048)
-- Torch's layout: the initial seed is the first 8 bytes, little-endian.
assert(state[1] == 11 and state[2] == 0 and state[8] == 0)
local after = { torch.normal(), torch.normal(), torch.uniform(), torch.random() }
assert(rawequal(torch.setRNGState(state), state))
same({ torch.normal(), torch.normal(), torch.uniform(), torch.random() }, after, 'after setRNGState')
-- getRNGState into a given tensor (resized) returns that tensor.
local into = torch.ByteTensor(3)
assert(rawequal(torch.getRNGState(into), into) and into:size(1) == 5048)

fails('torch.setRNGState: RNG state is wrong size', torch.setRNGState, torch.ByteTensor(10))
fails('torch.setRNGState: bad argument #1 (torch.ByteTensor expected, got torch.FloatTensor)',
   torch.setRNGState, torch.FloatTensor(5048))
fails('torch.setRNGState: bad argument #1 (tensor expected, got nil)', torch.setRNGState)
fails('torch.setRNGState: RNG state needs to be contiguous', torch.setRNGState,
   torch.ByteTensor(5048, 2):select(2, 1))
local bad = state:clone()
bad[13] = 0 -- the `seeded` flag
fails('torch.setRNGState: Invalid RNG state', torch.setRNGState, bad)
bad = state:clone()
bad[9], bad[10] = 0, 0 -- `left` = 0
fails('torch.setRNGState: Invalid RNG state', torch.setRNGState, bad)
fails('torch.getRNGState: bad argument #1 (torch.ByteTensor expected, got torch.LongTensor)',
   torch.getRNGState, torch.LongTensor(2))
-- a failed set leaves the generator alone
torch.setRNGState(state)
same({ torch.normal(), torch.normal(), torch.uniform(), torch.random() }, after, 'after a failed set')

fails('torch.manualSeed: bad argument #1 (number expected, got string)', torch.manualSeed, 'x')
fails('torch.manualSeed: bad argument #1 (number expected, got nil)', torch.manualSeed)
fails('torch.initialSeed: bad argument #1 (no more arguments expected, got number)', torch.initialSeed, 1)
fails('torch.seed: bad argument #1 (no more arguments expected, got number)', torch.seed, 1)

-- torch.Generator objects.
local g = torch.Generator()
assert(torch.type(g) == 'torch.Generator' and torch.typename(g) == 'torch.Generator')
assert(torch.isTypeOf(g, 'torch.Generator'))
assert(tostring(g):find('^torch%.Generator: '))
assert(torch.getmetatable('torch.Generator') ~= nil)
assert(torch.type(torch.factory('torch.Generator')()) == 'torch.Generator')
assert(torch.type(torch._gen) == 'torch.Generator')
-- each new generator is seeded on its own
assert(torch.initialSeed(torch.Generator()) ~= torch.initialSeed(torch.Generator()))

-- Independence: interleaved draws from two generators and the default one do not disturb each
-- other.
local g1, g2 = torch.Generator(), torch.Generator()
torch.manualSeed(g1, 5)
torch.manualSeed(g2, 5)
torch.manualSeed(5)
assert(torch.initialSeed(g1) == 5)
local x1, x2, x0 = {}, {}, {}
for i = 1, 700 do -- past a regeneration of the state
   x1[i] = torch.random(g1)
   x0[i] = torch.uniform()
   x1[i] = x1[i] + torch.random(g1)
   x2[i] = torch.random(g2) + torch.random(g2)
end
same(x1, x2, 'two generators with the same seed')
torch.manualSeed(5)
for i = 1, 700 do assert(torch.uniform() == x0[i]) end

-- torch._gen is the default generator.
torch.manualSeed(9)
a = torch.uniform()
torch.manualSeed(torch._gen, 9)
assert(torch.uniform() == a)

-- Every random function takes a generator: with one, it draws from it and leaves the default
-- alone, and it draws what the default would have given from the same seed.
local p = torch.Tensor{ 1, 2, 3 }
local forms = {
   { function(q) return torch.uniform(q, 2, 3) end, function() return torch.uniform(2, 3) end },
   { function(q) return torch.normal(q, 1, 2) end, function() return torch.normal(1, 2) end },
   { function(q) return torch.exponential(q, 2) end, function() return torch.exponential(2) end },
   { function(q) return torch.cauchy(q) end, function() return torch.cauchy() end },
   { function(q) return torch.logNormal(q) end, function() return torch.logNormal() end },
   { function(q) return torch.geometric(q, 0.5) end, function() return torch.geometric(0.5) end },
   { function(q) return torch.bernoulli(q) end, function() return torch.bernoulli() end },
   { function(q) return torch.random(q) end, function() return torch.random() end },
   { function(q) return torch.random(q, 7) end, function() return torch.random(7) end },
   { function(q) return torch.random(q, -7, 7) end, function() return torch.random(-7, 7) end },
   { function(q) return torch.Tensor(4):uniform(q, 1, 2) end, function() return torch.Tensor(4):uniform(1, 2) end },
   { function(q) return torch.Tensor(4):normal(q) end, function() return torch.Tensor(4):normal() end },
   { function(q) return torch.Tensor(4):exponential(q, 3) end, function() return torch.Tensor(4):exponential(3) end },
   { function(q) return torch.Tensor(4):cauchy(q, 1, 1) end, function() return torch.Tensor(4):cauchy(1, 1) end },
   { function(q) return torch.Tensor(4):logNormal(q, 1, 1) end, function() return torch.Tensor(4):logNormal(1, 1) end },
   { function(q) return torch.Tensor(4):geometric(q, 0.2) end, function() return torch.Tensor(4):geometric(0.2) end },
   { function(q) return torch.Tensor(4):bernoulli(q, 0.3) end, function() return torch.Tensor(4):bernoulli(0.3) end },
   { function(q) return torch.Tensor(3):bernoulli(q, torch.Tensor{ 0.2, 0.5, 0.9 }) end,
     function() return torch.Tensor(3):bernoulli(torch.Tensor{ 0.2, 0.5, 0.9 }) end },
   { function(q) return torch.IntTensor(4):random(q) end, function() return torch.IntTensor(4):random() end },
   { function(q) return torch.Tensor(4):random(q, 9) end, function() return torch.Tensor(4):random(9) end },
   { function(q) return torch.Tensor(4):random(q, 3, 9) end, function() return torch.Tensor(4):random(3, 9) end },
   { function(q) return torch.uniform(torch.Tensor(2), q) end, function() return torch.uniform(torch.Tensor(2)) end },
   { function(q) return torch.rand(q, 2, 2) end, function() return torch.rand(2, 2) end },
   { function(q) return torch.randn(q, 3) end, function() return torch.randn(3) end },
   { function(q) return torch.rand(torch.Tensor(), q, 3) end, function() return torch.rand(torch.Tensor(), 3) end },
   { function(q) return torch.randperm(q, 6) end, function() return torch.randperm(6) end },
   { function(q) return torch.multinomial(q, p, 3) end, function() return torch.multinomial(p, 3) end },
   { function(q) return torch.multinomial(torch.LongTensor(), q, p, 5, true) end,
     function() return torch.multinomial(torch.LongTensor(), p, 5, true) end },
}
for i, f in ipairs(forms) do
   torch.manualSeed(77)
   local first = torch.random()
   local q = torch.Generator()
   torch.manualSeed(q, 77)
   torch.manualSeed(77)
   local with = f[1](q)
   assert(torch.random() == first, 'form ' .. i .. ' drew from the default generator')
   torch.manualSeed(77)
   local without = f[2]()
   if type(with) == 'number' then
      assert(with == without, 'form ' .. i)
   else
      same(with, without, 'form ' .. i)
   end
end

-- State functions with a generator.
local q = torch.Generator()
torch.manualSeed(q, 21)
local qs = torch.getRNGState(q)
local qa = torch.uniform(q)
torch.manualSeed(q, 1)
torch.setRNGState(q, qs)
assert(torch.uniform(q) == qa)
local qs2 = torch.ByteTensor()
assert(rawequal(torch.getRNGState(q, qs2), qs2))
-- copying one generator's state into another clones its stream
torch.setRNGState(torch._gen, qs2)
assert(torch.uniform() == torch.uniform(q))
assert(torch.seed(q) == torch.initialSeed(q))

-- Serialization hooks: the raw state goes through file:writeByte / file:readByte.
local stored
local file = {
   writeByte = function(_, storage) stored = torch.ByteStorage(storage:size()):copy(storage) end,
   readByte = function(_, storage) storage:copy(stored) end,
}
torch.manualSeed(q, 31)
torch.normal(q)
q:write(file)
assert(stored:size() == 5048)
local r = torch.factory('torch.Generator')()
r:read(file)
for _ = 1, 10 do assert(torch.normal(q) == torch.normal(r)) end

print('ok')
