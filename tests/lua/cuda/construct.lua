-- Making and filling device tensors (zeros, ones, eye, range, linspace, logspace, reshape) and
-- random draws (rand, randn, the distributions, random, randperm, multinomial), checked against
-- the host: a device's generator seeded as the host's draws the same numbers.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}
local types = { 'FloatTensor', 'DoubleTensor', 'LongTensor' }

-- f(a tensor of type T) on the host and on the device, each after seeding its generator alike.
local function sameDraws(what, T, f, tol)
   torch.manualSeed(1234)
   local host = f(torch[T]())
   cutorch.manualSeed(1234)
   local dev = f(H.cuda(torch[T]()))
   H.close(dev, host, tol or 0, what)
end

function cases.fills()
   for _, T in ipairs(types) do
      local function both(what, f, tol)
         H.close(f(H.cuda(torch[T]())), f(torch[T]()), tol or 0, T .. ' ' .. what)
      end
      both('zeros', function(t) return t:zeros(2, 3) end)
      both('ones', function(t) return torch.ones(t, 4) end)
      both('zeros from a size storage', function(t) return t:zeros(torch.LongStorage { 3, 2 }) end)
      both('eye', function(t) return t:eye(3) end)
      both('eye n x m', function(t) return torch.eye(t, 2, 4) end)
      both('range', function(t) return t:range(2, 11) end)
      both('range by 3', function(t) return torch.range(t, -4, 9, 3) end)
      both('range down', function(t) return torch.range(t, 5, -5, -2) end)
      both('reshape', function(t) return t:range(1, 12):resize(3, 4):t():reshape(2, 6) end)
      both('torch.reshape into res', function(t)
         local res = t.new()
         torch.reshape(res, t:range(1, 6):resize(2, 3):t(), 6)
         return res
      end)
      both('reshape with a size storage', function(t) return t:range(1, 6):reshape(torch.LongStorage { 3, 2 }) end)
      if T ~= 'LongTensor' then
         both('range by a fraction', function(t) return torch.range(t, 0, 2, 0.25) end, 1e-6)
         both('linspace', function(t) return t:linspace(-1, 3, 7) end, 1e-6)
         both('linspace of one point', function(t) return t:linspace(2, 2, 1) end)
         both('linspace of 100', function(t) return torch.linspace(t, 0, 1) end, 1e-6)
         both('logspace', function(t) return t:logspace(-2, 2, 5) end, 1e-6)
      end
   end
   local t = torch.CudaTensor()
   H.raises('range step 0', function() t:range(1, 2, 0) end, 'range', 'nonzero')
   H.raises('range sign', function() t:range(3, 1) end, 'range', 'inconsistent')
   H.raises('linspace points', function() t:linspace(0, 1, 1) end, 'linspace', 'number of points')
   H.raises('long linspace', function() torch.CudaLongTensor():linspace(0, 1, 3) end, 'linspace', 'does not implement')
   H.raises('eye 0', function() t:eye(0) end, 'eye', 'positive')
   H.raises('reshape count', function() t:range(1, 6):reshape(4, 2) end, 'reshape', 'cannot reshape')
end

function cases.draws()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      sameDraws(T .. ' rand', T, function(t) return t:rand(3, 4) end)
      sameDraws(T .. ' randn', T, function(t) return torch.randn(t, 5) end)
      sameDraws(T .. ' uniform', T, function(t) return t:resize(6):uniform(-3, 5) end)
      sameDraws(T .. ' normal', T, function(t) return t:resize(6):normal(2, 0.5) end)
      sameDraws(T .. ' exponential', T, function(t) return t:resize(6):exponential(2) end)
      sameDraws(T .. ' cauchy', T, function(t) return torch.cauchy(t:resize(6), 1, 2) end)
      sameDraws(T .. ' logNormal', T, function(t) return t:resize(6):logNormal(1, 0.5) end)
   end
   for _, T in ipairs(types) do
      sameDraws(T .. ' geometric', T, function(t) return t:resize(8):geometric(0.3) end)
      sameDraws(T .. ' bernoulli', T, function(t) return t:resize(8):bernoulli(0.3) end)
      sameDraws(T .. ' random', T, function(t) return t:resize(8):random() end)
      sameDraws(T .. ' random(n)', T, function(t) return t:resize(8):random(6) end)
      sameDraws(T .. ' random(a, b)', T, function(t) return torch.random(t:resize(2, 4), -3, 3) end)
      sameDraws(T .. ' randperm', T, function(t) return t:randperm(9) end)
   end
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local probs = torch[T]({ { 0.1, 0.5, 0.4 }, { 0.7, 0.2, 0.1 } })
      for _, replacement in ipairs { true, false } do
         torch.manualSeed(99)
         local want = torch.multinomial(probs, 3, replacement)
         cutorch.manualSeed(99)
         H.close(H.cuda(probs):multinomial(3, replacement), want, 0, T .. ' multinomial')
         cutorch.manualSeed(99)
         local res = torch.CudaLongTensor()
         torch.multinomial(res, H.cuda(probs), 3, replacement)
         H.close(res, want, 0, T .. ' torch.multinomial into res')
      end
      torch.manualSeed(5)
      local want = torch.multinomial(probs[1], 2)
      cutorch.manualSeed(5)
      H.close(torch.multinomial(H.cuda(probs[1]), 2), want, 0, T .. ' multinomial of a vector')
   end
   local t = torch.CudaTensor(3)
   H.raises('long uniform', function() torch.CudaLongTensor(2):uniform() end, 'uniform', 'Float')
   H.raises('geometric p', function() t:geometric(1.5) end, 'geometric', 'p must be')
   H.raises('random bounds', function() t:random(5, 1) end, 'random', 'upper bound')
   H.raises('randperm 0', function() t:randperm(0) end, 'randperm', 'positive')
   H.raises('multinomial n', function() t:fill(1):multinomial(0) end, 'multinomial', 'n_sample')
   H.raises('multinomial 3D', function() torch.CudaTensor(2, 2, 2):fill(1):multinomial(1) end, 'multinomial', 'dim')
end

function cases.elementFunctions()
   local t = torch.CudaTensor(3):fill(1)
   for _, call in ipairs {
      { 'apply', function() t:apply(function(x) return x end) end },
      { 'map', function() t:map(t, function(x) return x end) end },
      { 'map2', function() t:map2(t, t, function(x) return x end) end },
   } do
      H.raises(call[1], call[2], call[1], ':float()')
   end
end

return cases
