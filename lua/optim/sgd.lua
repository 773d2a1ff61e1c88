-- optim.sgd(opfunc, x[, config[, state]]): one step of stochastic gradient descent.
--
-- config: learningRate (1e-3), learningRateDecay (0), weightDecay (0), weightDecays (a tensor of
-- per-parameter decays, used when weightDecay is 0), momentum (0), dampening (= momentum),
-- nesterov (false), learningRates (a tensor of per-parameter rates).
-- state (config when not given): evalCounter, and the buffers dfdx (the momentum), decayParameters
-- and deltaParameters.
-- Returns x (updated in place) and {f(x)} evaluated before the step.
local checks = require 'optim.checks'

local NAME = 'optim.sgd'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local lr = checks.number(NAME, config, 'learningRate', 1e-3)
   local lrd = checks.number(NAME, config, 'learningRateDecay', 0)
   local wd = checks.number(NAME, config, 'weightDecay', 0)
   local mom = checks.number(NAME, config, 'momentum', 0)
   local damp = checks.number(NAME, config, 'dampening', mom)
   local nesterov = config.nesterov or false
   local lrs, wds = config.learningRates, config.weightDecays
   if nesterov and (mom <= 0 or damp ~= 0) then
      checks.fail(NAME, 'Nesterov momentum requires a momentum and zero dampening')
   end
   state.evalCounter = state.evalCounter or 0

   local fx, dfdx = checks.eval(NAME, opfunc, x)

   -- Weight decay adds wd * x to the gradient (the caller's gradient tensor, as in Torch).
   if wd ~= 0 then
      dfdx:add(wd, x)
   elseif wds then
      state.decayParameters = state.decayParameters or x.new():resizeAs(dfdx)
      state.decayParameters:copy(wds):cmul(x)
      dfdx:add(state.decayParameters)
   end

   -- Momentum: the first step starts the running direction at the gradient itself, undamped.
   if mom ~= 0 then
      if state.dfdx then
         state.dfdx:mul(mom):add(1 - damp, dfdx)
      else
         state.dfdx = dfdx.new():resizeAs(dfdx):copy(dfdx)
      end
      if nesterov then
         dfdx:add(mom, state.dfdx)
      else
         dfdx = state.dfdx
      end
   end

   -- The rate is annealed by the number of steps taken before this one.
   local clr = lr / (1 + state.evalCounter * lrd)

   if lrs then
      state.deltaParameters = state.deltaParameters or x.new():resizeAs(dfdx)
      state.deltaParameters:copy(lrs):cmul(dfdx)
      x:add(-clr, state.deltaParameters)
   else
      x:add(-clr, dfdx)
   end

   state.evalCounter = state.evalCounter + 1
   return x, { fx }
end
