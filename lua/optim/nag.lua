-- optim.nag(opfunc, x[, config[, state]]): SGD with Nesterov's accelerated gradient, in the form
-- of Sutskever et al. (ICML 2013): the gradient is taken after a step along the momentum.
--
-- config: learningRate (1e-3), learningRateDecay (0), weightDecay (0), momentum (0.9, must be
-- positive), learningRates (a tensor of per-parameter rates).
-- state (config when not given): evalCounter, dfdx (the momentum), deltaParameters.
-- Returns x (updated in place) and {f(x)}, f evaluated at the look-ahead point.
local checks = require 'optim.checks'

local NAME = 'optim.nag'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local lr = checks.number(NAME, config, 'learningRate', 1e-3)
   local lrd = checks.number(NAME, config, 'learningRateDecay', 0)
   local wd = checks.number(NAME, config, 'weightDecay', 0)
   local mom = checks.number(NAME, config, 'momentum', 0.9)
   local lrs = config.learningRates
   if mom <= 0 then
      checks.fail(NAME, 'Momentum must be positive for Nesterov Accelerated Gradient')
   end
   state.evalCounter = state.evalCounter or 0

   -- Look ahead along the momentum, and take the gradient there.
   if state.dfdx then x:add(mom, state.dfdx) end
   local fx, dfdx = checks.eval(NAME, opfunc, x)

   if wd ~= 0 then dfdx:add(wd, x) end

   local clr = lr / (1 + state.evalCounter * lrd)

   -- The momentum decays, then takes the step; x takes the same step (it already moved by the
   -- decayed momentum above).
   if state.dfdx then
      state.dfdx:mul(mom)
   else
      state.dfdx = dfdx.new():resizeAs(dfdx):zero()
   end
   local step = dfdx
   if lrs then
      state.deltaParameters = state.deltaParameters or x.new():resizeAs(dfdx)
      step = state.deltaParameters:copy(lrs):cmul(dfdx)
   end
   x:add(-clr, step)
   state.dfdx:add(-clr, step)

   state.evalCounter = state.evalCounter + 1
   return x, { fx }
end
