-- optim.rmsprop(opfunc, x[, config[, state]]): RMSprop, each parameter's rate divided by the root
-- of a leaky mean of its squared gradients.
--
-- config: learningRate (1e-2), alpha (0.99, the smoothing constant), epsilon (1e-8),
-- weightDecay (0), initialMean (0, the value m starts at).
-- state (config when not given): m (the leaky mean of squared gradients), tmp (sqrt(m) + epsilon).
-- Returns x (updated in place) and {f(x)} evaluated before the step.
local checks = require 'optim.checks'

local NAME = 'optim.rmsprop'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local lr = checks.number(NAME, config, 'learningRate', 1e-2)
   local alpha = checks.number(NAME, config, 'alpha', 0.99)
   local epsilon = checks.number(NAME, config, 'epsilon', 1e-8)
   local wd = checks.number(NAME, config, 'weightDecay', 0)
   local mfill = checks.number(NAME, config, 'initialMean', 0)

   local fx, dfdx = checks.eval(NAME, opfunc, x)
   if wd ~= 0 then dfdx:add(wd, x) end

   if not state.m then
      state.m = x.new():resizeAs(dfdx):fill(mfill)
      state.tmp = x.new():resizeAs(dfdx)
   end
   state.m:mul(alpha):addcmul(1 - alpha, dfdx, dfdx)
   state.tmp:sqrt(state.m):add(epsilon)
   x:addcdiv(-lr, dfdx, state.tmp)

   return x, { fx }
end
