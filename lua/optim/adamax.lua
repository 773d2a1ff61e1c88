-- optim.adamax(opfunc, x[, config[, state]]): AdaMax, Adam's variant with the infinity norm
-- (Kingma and Ba, https://arxiv.org/abs/1412.6980, section 7).
--
-- config: learningRate (2e-3), beta1 (0.9), beta2 (0.999), epsilon (1e-38), weightDecay (0).
-- state (config when not given): t (steps taken), m (the running first moment), u (the decaying
-- infinity norm of the gradients).
-- Returns x (updated in place) and {f(x)} evaluated before the step.
local checks = require 'optim.checks'

local NAME = 'optim.adamax'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local lr = checks.number(NAME, config, 'learningRate', 2e-3)
   local beta1 = checks.number(NAME, config, 'beta1', 0.9)
   local beta2 = checks.number(NAME, config, 'beta2', 0.999)
   local epsilon = checks.number(NAME, config, 'epsilon', 1e-38)
   local wd = checks.number(NAME, config, 'weightDecay', 0)

   local fx, dfdx = checks.eval(NAME, opfunc, x)
   if wd ~= 0 then dfdx:add(wd, x) end

   state.t = state.t or 0
   state.m = state.m or x.new(dfdx:size()):zero()
   state.u = state.u or x.new(dfdx:size()):zero()
   -- |df/dx| + epsilon, kept between steps so that no step allocates.
   state.absGrad = state.absGrad or x.new(dfdx:size())

   state.t = state.t + 1
   state.m:mul(beta1):add(1 - beta1, dfdx)
   -- u = max(beta2 * u, |g| + epsilon), elementwise.
   state.absGrad:copy(dfdx):abs():add(epsilon)
   state.u:mul(beta2):cmax(state.absGrad)

   x:addcdiv(-lr / (1 - beta1 ^ state.t), state.m, state.u)
   return x, { fx }
end
