-- totem.nn's module checks (runs under Torch7's th as well).
require 'nn'
require 'totem'

torch.manualSeed(7)

-- Runs fn(tester) as the only test of a fresh Tester, silently; returns the tester and whether
-- every assertion passed.
local function run_check(fn)
   local tester = totem.Tester()
   local saved_arg = arg
   arg = nil
   tester:add(function() fn(tester) end, 'check')
   local oldwrite = io.write
   io.write = function() end
   local ok = pcall(tester.run, tester)
   io.write = oldwrite
   arg = saved_arg
   return tester, ok
end

local function passes(label, fn)
   local tester, ok = run_check(fn)
   assert(ok, label .. ' should pass')
   assert(tester.assertionPass.check > 0, label .. ' made no assertion')
   return tester
end

local function fails(label, fn)
   local tester, ok = run_check(fn)
   assert(not ok, label .. ' should fail')
   return tester
end

-- gradients: parameters and inputs, tensors and tables
local t = passes('Linear gradients', function(tester)
   totem.nn.checkGradients(tester, nn.Linear(4, 3), torch.randn(2, 4))
end)
-- the size check of the gradient, then params and input
assert(t.assertionPass.check >= 3, t.assertionPass.check)
passes('Tanh gradients', function(tester)
   totem.nn.checkGradients(tester, nn.Tanh(), torch.randn(5))
end)
passes('table input', function(tester)
   totem.nn.checkGradients(tester, nn.CAddTable(), { torch.randn(3), torch.randn(3) })
end)
passes('table output', function(tester)
   local m = nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Identity())
   totem.nn.checkGradients(tester, m, torch.randn(3))
end)
passes('stochastic module (the generator is reset each time)', function(tester)
   totem.nn.checkGradients(tester, nn.Dropout(0.5), torch.randn(6))
end)

-- a module whose gradInput is wrong
local Wrong, WrongParent = torch.class('totem.testWrongGrad', 'nn.Module')
function Wrong:updateOutput(input) self.output = input * 2; return self.output end
function Wrong:updateGradInput(input, gradOutput) self.gradInput = gradOutput:clone(); return self.gradInput end
local bad = fails('wrong gradient', function(tester)
   totem.nn.checkGradients(tester, totem.testWrongGrad(), torch.randn(3))
end)
assert(bad.assertionFail.check == 1)

-- minibatches
passes('Linear minibatch', function(tester)
   totem.nn.checkMinibatch(tester, nn.Linear(3, 2), torch.randn(4, 3), 1e-12)
end)
local Mixer, MixerParent = torch.class('totem.testRowMixer', 'nn.Module')
function Mixer:updateOutput(input) self.output = input - input:mean(); return self.output end
function Mixer:updateGradInput(input, gradOutput) self.gradInput = gradOutput:clone(); return self.gradInput end
fails('a module mixing the examples of a batch', function(tester)
   totem.nn.checkMinibatch(tester, totem.testRowMixer(), torch.randn(4, 3))
end)

-- type casts
passes('Linear cast', function(tester)
   totem.nn.checkTypeCastable(tester, nn.Linear(3, 2), torch.randn(2, 3), 'torch.FloatTensor', 1e-5)
end)
passes('sharing kept', function(tester)
   local m = nn.Linear(3, 3)
   local shared = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
   totem.nn.checkTypePreservesSharing(tester, nn.Sequential():add(m):add(shared))
end)

-- serialization
passes('Linear serializable', function(tester)
   totem.nn.checkSerializable(tester, nn.Linear(3, 2), torch.randn(3))
end)

print('ok')
