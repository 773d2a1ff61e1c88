-- optim.adagrad(opfunc, x[, config[, state]]): AdaGrad, each parameter's rate divided by the root
-- of the sum of its squared gradients.
--
-- config: learningRate (1e-3), learningRateDecay (0), weightDecay (0).
-- state (config when not given): evalCounter, paramVariance (the sum of squared gradients),
-- paramStd (its square root, plus 1e-10).
-- Returns x (updated in place) and {f(x)} evaluated before the step.
local checks = require 'optim.checks'

local NAME = 'optim.adagrad'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local lr = checks.number(NAME, config, 'learningRate', 1e-3)
   local lrd = checks.number(NAME, config, 'learningRateDecay', 0)
   local wd = checks.number(NAME, config, 'weightDecay', 0)
   state.evalCounter = state.evalCounter or 0

   local fx, dfdx = checks.eval(NAME, opfunc, x)
   if wd ~= 0 then dfdx:add(wd, x) end

   local clr = lr / (1 + state.evalCounter * lrd)

   if not state.paramVariance then
      state.paramVariance = x.new():resizeAs(dfdx):zero()
      state.paramStd = x.new():resizeAs(dfdx)
   end
   state.paramVariance:addcmul(1, dfdx, dfdx)
   -- The 1e-10 keeps a parameter whose gradients were all zero from dividing by zero.
   state.paramStd:resizeAs(state.paramVariance):copy(state.paramVariance):sqrt():add(1e-10)
   x:addcdiv(-clr, dfdx, state.paramStd)

   state.evalCounter = state.evalCounter + 1
   return x, { fx }
end
