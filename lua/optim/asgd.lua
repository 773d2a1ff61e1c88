-- optim.asgd(opfunc, x[, config[, state]]): averaged SGD, as in L. Bottou's sgd-2.0:
--
--    x := (1 - lambda eta_t) x - eta_t df/dx
--    a := a + mu_t (x - a)
--    eta_t = eta0 / (1 + lambda eta0 t)^alpha,   mu_t = 1 / max(1, t - t0)
--
-- config: eta0 (1e-4), lambda (1e-4), alpha (0.75), t0 (1e6, the step where averaging starts);
-- the defaults are written into config, as in Torch.
-- state (config when not given): eta_t, mu_t, t, ax (the average), tmp (a buffer).
-- Returns x (updated in place), {f(x)} evaluated before the step, and the average ax.
local checks = require 'optim.checks'

local NAME = 'optim.asgd'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   config.eta0 = checks.number(NAME, config, 'eta0', 1e-4)
   config.lambda = checks.number(NAME, config, 'lambda', 1e-4)
   config.alpha = checks.number(NAME, config, 'alpha', 0.75)
   config.t0 = checks.number(NAME, config, 't0', 1e6)

   state.eta_t = state.eta_t or config.eta0
   state.mu_t = state.mu_t or 1
   state.t = state.t or 0

   local fx, dfdx = checks.eval(NAME, opfunc, x)

   x:mul(1 - config.lambda * state.eta_t)
   x:add(-state.eta_t, dfdx)

   state.ax = state.ax or x.new():resizeAs(x):zero()
   state.tmp = state.tmp or state.ax.new():resizeAs(state.ax)
   if state.mu_t == 1 then
      state.ax:copy(x)
   else
      state.tmp:copy(x):add(-1, state.ax):mul(state.mu_t)
      state.ax:add(state.tmp)
   end

   state.t = state.t + 1
   state.eta_t = config.eta0 / (1 + config.lambda * config.eta0 * state.t) ^ config.alpha
   state.mu_t = 1 / math.max(1, state.t - config.t0)

   return x, { fx }, state.ax
end
