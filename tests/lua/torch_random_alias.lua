-- Walker's alias method: torch.multinomialAliasSetup / torch.multinomialAlias (state tables) and
-- the native multinomialAliasSetup_ / multinomialAlias_ (J and q): tables by hand, the types of J
-- and q, output's size as the number of draws, the seed's stream, and the errors.
local H = dofile('torch_test_helpers.lua')
local same, is, fails_containing = H.same, H.is, H.fails_containing

---------------------------------------------------------------------------------------------------
-- The tables for {0.1, 0.2, 0.3, 0.4}: q = 4p = {0.4, 0.8, 1.2, 1.6}. Slot 2 takes its missing
-- 0.2 from slot 4 (now 1.4), slot 1 takes 0.6 from slot 4 (now 0.8, small), slot 4 takes 0.2 from
-- slot 3 (now 1, and it keeps its own category).
do
   local probs = torch.DoubleTensor({ 0.1, 0.2, 0.3, 0.4 })
   local J, q = torch.multinomialAliasSetup_(probs)
   same(J, { 4, 4, 1, 3 }, 'torch.LongTensor')
   same(q, { 0.4, 0.8, 1, 0.8 }, 'torch.DoubleTensor', 1e-12)
   local state = torch.multinomialAliasSetup(probs)
   assert(type(state) == 'table' and #state == 2)
   same(state[1], { 4, 4, 1, 3 }, 'torch.LongTensor')
   same(state[2], { 0.4, 0.8, 1, 0.8 }, 'torch.DoubleTensor', 1e-12)
   -- A given state is refilled in place (resized to probs).
   local J0, q0 = torch.LongTensor(9), torch.DoubleTensor(2)
   local s2 = { J0, q0 }
   assert(rawequal(torch.multinomialAliasSetup(probs, s2), s2))
   assert(is(s2[1], J0) and is(s2[2], q0))
   same(J0, { 4, 4, 1, 3 })
   -- As a method of the probabilities, with the result tensors given.
   local J1, q1 = probs:multinomialAliasSetup_(torch.LongTensor(), torch.DoubleTensor())
   same(J1, { 4, 4, 1, 3 })
   -- A FloatTensor's q is a FloatTensor, computed in single precision.
   local sf = torch.multinomialAliasSetup(torch.FloatTensor({ 0.25, 0.75 }))
   same(sf[1], { 2, 1 }, 'torch.LongTensor')
   same(sf[2], { 0.5, 1 }, 'torch.FloatTensor')
   -- Weights above 1 in total: q is scaled down by its largest value.
   local sb = torch.multinomialAliasSetup(torch.DoubleTensor({ 1, 1 }))
   same(sb[2], { 1, 1 })
end

---------------------------------------------------------------------------------------------------
-- Draws: output's element count is the number of draws, filled in logical order whatever its shape;
-- every draw is a category in 1..K; the frequencies follow the probabilities.
do
   local probs = torch.DoubleTensor({ 0.1, 0.2, 0.3, 0.4 })
   local state = torch.multinomialAliasSetup(probs)
   local out = torch.LongTensor(200000)
   assert(is(torch.multinomialAlias(out, state), out))
   H.tensor(out, { 200000 }, nil, 'draws', 'torch.LongTensor')
   assert(out:min() >= 1 and out:max() <= 4)
   local counts = torch.zeros(4)
   out:apply(function(c) counts[c] = counts[c] + 1 end)
   counts:div(out:nElement())
   for i = 1, 4 do
      assert(math.abs(counts[i] - probs[i]) < 0.01, 'category ' .. i .. ': ' .. counts[i])
   end
   -- The tables are left as they are, so drawing again from the same state works.
   same(state[1], { 4, 4, 1, 3 })
   torch.multinomialAlias(out, state)
   assert(out:min() >= 1 and out:max() <= 4)
   -- A matrix output, and a strided one: every element is drawn.
   local m = torch.LongTensor(3, 5):zero()
   torch.multinomialAlias(m, state)
   assert(m:min() >= 1 and m:max() <= 4)
   local big = torch.LongTensor(4, 6):zero()
   torch.multinomialAlias(big:select(2, 3), state)
   H.num(big:ne(0):sum(), 4)
   -- An empty output draws nothing.
   torch.multinomialAlias(torch.LongTensor(), state)
   -- The same seed gives the same draws; a generator can be passed to the native form.
   torch.manualSeed(42)
   local a = torch.multinomialAlias(torch.LongTensor(50), state):clone()
   torch.manualSeed(42)
   local b = torch.multinomialAlias(torch.LongTensor(50), state)
   H.equal(a, b, 'same seed')
   local g = torch.Generator()
   torch.manualSeed(g, 42)
   H.equal(torch.multinomialAlias_(torch.LongTensor(50), g, state[1], state[2]), a, 'generator')
   -- A certain category: one weight.
   local one = torch.multinomialAliasSetup(torch.DoubleTensor({ 1 }))
   H.equal(torch.multinomialAlias(torch.LongTensor(5), one), torch.LongTensor({ 1, 1, 1, 1, 1 }))
end

---------------------------------------------------------------------------------------------------
-- Errors: clear Lua errors naming the function.
fails_containing(function() return torch.multinomialAliasSetup(torch.LongTensor({ 1, 1 })) end,
   'multinomialAliasSetup: bad argument #1 (probs: torch.FloatTensor or torch.DoubleTensor expected, got torch.LongTensor)')
fails_containing(function() return torch.multinomialAliasSetup(torch.DoubleTensor()) end,
   'multinomialAliasSetup: probs must have at least one element')
fails_containing(function() return torch.multinomialAliasSetup(torch.DoubleTensor({ 0.5, 0, 0.5 })) end,
   'multinomialAliasSetup: q_min is less than 0')
fails_containing(function() return torch.multinomialAliasSetup(torch.DoubleTensor({ 1.5, -0.5 })) end,
   'multinomialAliasSetup: q_min is less than 0')
fails_containing(function() return torch.multinomialAliasSetup(torch.DoubleTensor({ 0 / 0, 1 })) end,
   'multinomialAliasSetup: invalid probability')
fails_containing(function() return torch.multinomialAliasSetup('x') end,
   'multinomialAliasSetup: bad argument #1 (tensor expected, got string)')
fails_containing(function()
   return torch.multinomialAliasSetup(torch.DoubleTensor({ 1 }), { torch.IntTensor(), torch.DoubleTensor() })
end, 'multinomialAliasSetup: bad argument #2 (J: torch.LongTensor expected, got torch.IntTensor)')
fails_containing(function()
   return torch.multinomialAliasSetup(torch.DoubleTensor({ 1 }), { torch.LongTensor(), torch.FloatTensor() })
end, 'multinomialAliasSetup: bad argument #3 (q: torch.DoubleTensor expected, got torch.FloatTensor)')
do
   local state = torch.multinomialAliasSetup(torch.DoubleTensor({ 0.5, 0.5 }))
   fails_containing(function() return torch.multinomialAlias(torch.IntTensor(3), state) end,
      'multinomialAlias: bad argument #1 (output: torch.LongTensor expected, got torch.IntTensor)')
   fails_containing(function() return torch.multinomialAlias(torch.LongTensor(3)) end,
      'torch.multinomialAlias: bad argument #2 (state table from torch.multinomialAliasSetup expected, got nil)')
   fails_containing(function() return torch.multinomialAlias(torch.LongTensor(3), { state[1] }) end,
      'multinomialAlias: bad argument #3 (tensor expected, got nil)')
   fails_containing(function()
      return torch.multinomialAlias(torch.LongTensor(3), { torch.LongTensor({ 1, 3 }), state[2] })
   end, 'multinomialAlias: alias index 3 out of range 1..2')
   fails_containing(function()
      return torch.multinomialAlias(torch.LongTensor(3), { state[1], torch.DoubleTensor(3):fill(1) })
   end, 'multinomialAlias: the alias tables must have one element per category, got 2 and 3')
   fails_containing(function()
      return torch.multinomialAlias_(torch.LongTensor(3), state[1], state[2], 1)
   end, 'multinomialAlias: bad argument #4 (no more arguments expected, got number)')
end

print('ok')
