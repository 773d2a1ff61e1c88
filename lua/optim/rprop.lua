-- optim.rprop(opfunc, x[, config[, state]]): resilient propagation (Riedmiller). Each parameter
-- moves by its own step size in the direction opposite its gradient's sign; the step grows while
-- the sign stays and shrinks when it flips.
--
-- config: stepsize (0.1, the initial step), etaplus (1.2), etaminus (0.5), stepsizemax (50),
-- stepsizemin (1e-6), niter (1, evaluations per call).
-- state (config when not given): delta (the last gradient used), stepsize (a tensor of the
-- current steps), sign, and the masks psign, nsign, zsign.
-- Returns x (updated in place) and the table of f(x) at each of the niter evaluations.
local checks = require 'optim.checks'

local NAME = 'optim.rprop'

-- A mask for t's comparisons: CUDA tensors compare into their own type (there is no CUDA byte
-- tensor), the others into a ByteTensor.
local function new_mask(t)
   if torch.type(t):find('^torch%.Cuda') then return t.new() end
   return torch.ByteTensor()
end

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   -- With state == config, state.stepsize becomes the tensor of steps after the first call: the
   -- number is only read before that.
   local stepsize = state.delta and 0 or checks.number(NAME, config, 'stepsize', 0.1)
   local etaplus = checks.number(NAME, config, 'etaplus', 1.2)
   local etaminus = checks.number(NAME, config, 'etaminus', 0.5)
   local stepsizemax = checks.number(NAME, config, 'stepsizemax', 50)
   local stepsizemin = checks.number(NAME, config, 'stepsizemin', 1e-6)
   local niter = checks.number(NAME, config, 'niter', 1)

   local hfx = {}
   for _ = 1, niter do
      local fx, dfdx = checks.eval(NAME, opfunc, x)

      if not state.delta then
         state.delta = dfdx.new(dfdx:size()):zero()
         state.stepsize = dfdx.new(dfdx:size()):fill(stepsize)
         state.sign = dfdx.new(dfdx:size())
         state.psign, state.nsign, state.zsign = new_mask(dfdx), new_mask(dfdx), new_mask(dfdx)
      end
      local sign, psign, nsign, zsign = state.sign, state.psign, state.nsign, state.zsign

      -- Did each gradient keep its sign since the last step (+), flip (-), or touch zero (0)?
      torch.cmul(sign, dfdx, state.delta):sign()
      psign:gt(sign, 0)
      nsign:lt(sign, 0)
      zsign:eq(sign, 0)

      -- Grow, shrink or keep each step size, within [stepsizemin, stepsizemax].
      sign:maskedFill(psign, etaplus):maskedFill(nsign, etaminus):maskedFill(zsign, 1)
      state.stepsize:cmul(sign):clamp(stepsizemin, stepsizemax)

      -- Where the sign flipped the last step overshot: skip this step, and let the next one
      -- count as a fresh start (its delta is zero).
      dfdx:maskedFill(nsign, 0)
      torch.sign(sign, dfdx)
      x:addcmul(-1, sign, state.stepsize)
      state.delta:copy(dfdx)

      hfx[#hfx + 1] = fx
   end
   return x, hfx
end
