-- optim.adadelta(opfunc, x[, config[, state]]): ADADELTA (Zeiler, http://arxiv.org/abs/1212.5701),
-- which needs no learning rate: each step is scaled by the running RMS of the past steps over the
-- running RMS of the gradients.
--
-- config: rho (0.9), eps (1e-6), weightDecay (0).
-- state (config when not given): evalCounter, paramVariance (running mean of squared gradients),
-- paramStd (its root), delta (the last step), accDelta (running mean of squared steps).
-- Returns x (updated in place) and {f(x)} evaluated before the step.
local checks = require 'optim.checks'

local NAME = 'optim.adadelta'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local rho = checks.number(NAME, config, 'rho', 0.9)
   local eps = checks.number(NAME, config, 'eps', 1e-6)
   local wd = checks.number(NAME, config, 'weightDecay', 0)
   state.evalCounter = state.evalCounter or 0

   local fx, dfdx = checks.eval(NAME, opfunc, x)
   if wd ~= 0 then dfdx:add(wd, x) end

   if not state.paramVariance then
      state.paramVariance = x.new():resizeAs(dfdx):zero()
      state.paramStd = x.new():resizeAs(dfdx):zero()
      state.delta = x.new():resizeAs(dfdx):zero()
      state.accDelta = x.new():resizeAs(dfdx):zero()
   end
   state.paramVariance:mul(rho):addcmul(1 - rho, dfdx, dfdx)
   state.paramStd:resizeAs(state.paramVariance):copy(state.paramVariance):add(eps):sqrt()
   -- delta = sqrt(accDelta + eps) / sqrt(paramVariance + eps) * df/dx
   state.delta:resizeAs(state.paramVariance):copy(state.accDelta):add(eps):sqrt()
      :cdiv(state.paramStd):cmul(dfdx)
   x:add(-1, state.delta)
   state.accDelta:mul(rho):addcmul(1 - rho, state.delta, state.delta)

   state.evalCounter = state.evalCounter + 1
   return x, { fx }
end
