-- optim.adam(opfunc, x[, config[, state]]): Adam (Kingma and Ba, https://arxiv.org/abs/1412.6980).
--
-- config: learningRate (1e-3), learningRateDecay (0), beta1 (0.9), beta2 (0.999), epsilon (1e-8),
-- weightDecay (0).
-- state (config when not given): t (steps taken), m and v (the running first and second moments of
-- the gradient), denom (a buffer: sqrt(v) + epsilon).
-- Returns x (updated in place) and {f(x)} evaluated before the step.
local checks = require 'optim.checks'

local NAME = 'optim.adam'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local lr = checks.number(NAME, config, 'learningRate', 1e-3)
   local lrd = checks.number(NAME, config, 'learningRateDecay', 0)
   local beta1 = checks.number(NAME, config, 'beta1', 0.9)
   local beta2 = checks.number(NAME, config, 'beta2', 0.999)
   local epsilon = checks.number(NAME, config, 'epsilon', 1e-8)
   local wd = checks.number(NAME, config, 'weightDecay', 0)

   local fx, dfdx = checks.eval(NAME, opfunc, x)
   if wd ~= 0 then dfdx:add(wd, x) end

   state.t = state.t or 0
   state.m = state.m or x.new(dfdx:size()):zero()
   state.v = state.v or x.new(dfdx:size()):zero()
   state.denom = state.denom or x.new(dfdx:size()):zero()

   -- Annealing counts the steps before this one; the bias corrections count this one.
   local clr = lr / (1 + state.t * lrd)
   state.t = state.t + 1

   state.m:mul(beta1):add(1 - beta1, dfdx)
   state.v:mul(beta2):addcmul(1 - beta2, dfdx, dfdx)
   state.denom:copy(state.v):sqrt():add(epsilon)

   local correction1 = 1 - beta1 ^ state.t
   local correction2 = 1 - beta2 ^ state.t
   x:addcdiv(-clr * math.sqrt(correction2) / correction1, state.m, state.denom)

   return x, { fx }
end
