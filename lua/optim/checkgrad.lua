-- optim.checkgrad(opfunc, x[, eps]): compares opfunc's gradient at x with central differences
-- (f(x + eps e_i) - f(x - eps e_i)) / 2 eps, eps 1e-7 by default.
-- Returns the relative error |dC - dC_est| / |dC + dC_est|, the gradient dC and its estimate
-- dC_est. x is changed while checking and restored before returning.
local checks = require 'optim.checks'

local NAME = 'optim.checkgrad'

-- f(x) as a number: a one-element tensor is read (a criterion may return its output buffer, which
-- the next evaluation overwrites, so it is read at once).
local function value(f)
   if type(f) == 'number' then return f end
   if torch.isTensor(f) and f:nElement() == 1 then return f:view(1)[1] end
   checks.fail(NAME, 'opfunc must return f(x) as a number or a one-element tensor, got '
      .. torch.type(f))
end

return function(opfunc, x, eps)
   checks.args(NAME, opfunc, x)
   if eps ~= nil and type(eps) ~= 'number' then
      checks.fail(NAME, 'bad argument #3 (eps: a number expected, got ' .. type(eps) .. ')')
   end
   eps = eps or 1e-7
   if not x:isContiguous() then
      checks.fail(NAME, 'x must be contiguous (its elements are perturbed through a flat view)')
   end

   local _, dC = checks.eval(NAME, opfunc, x)
   dC:resize(x:size())
   local dC_est = dC.new():resizeAs(dC)

   local flat, flatEst = x:view(x:nElement()), dC_est:view(dC_est:nElement())
   for i = 1, flat:size(1) do
      local saved = flat[i]
      flat[i] = saved + eps
      local C1 = value((opfunc(x)))
      -- From x + eps, as Torch did: the estimate then matches its to the last bit.
      flat[i] = flat[i] - 2 * eps
      local C2 = value((opfunc(x)))
      flat[i] = saved
      flatEst[i] = (C1 - C2) / (2 * eps)
   end

   local diff = torch.norm(dC - dC_est) / torch.norm(dC + dC_est)
   return diff, dC, dC_est
end
