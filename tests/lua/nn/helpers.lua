-- What the nn test scripts share: checks that say what differed, gradient checks against finite
-- differences, and a runner that reports every case (the script fails if any did).
require 'nn'

local H = {}
H.dir = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
H.fixtures = H.dir .. '../../fixtures/t7/nn/'

function H.check(cond, fmt, ...)
   if not cond then error(string.format(fmt, ...), 2) end
end

-- |a - b| <= tol for numbers or tensors (largest difference).
function H.close(a, b, tol, what)
   local diff
   if type(a) == 'number' then
      diff = math.abs(a - b)
   else
      H.check(a:nElement() == b:nElement(), '%s: %d elements, expected %d', what, a:nElement(), b:nElement())
      diff = a:nElement() == 0 and 0 or (a:double():contiguous():view(-1) - b:double():contiguous():view(-1)):abs():max()
   end
   H.check(diff <= tol, '%s: differs by %g (tolerance %g)', what, diff, tol)
end

-- The module's input gradient, and each named parameter's gradient, against central differences
-- (nn.Jacobian), on `input` filled with values in [lo, hi].
function H.gradients(module, input, what, params, lo, hi)
   local tol = 1e-5
   local err = nn.Jacobian.testJacobian(module, input, lo, hi)
   H.check(err < tol, '%s: gradient of the input off by %g', what, err)
   for _, p in ipairs(params or {}) do
      local name, gname = p[1], p[2]
      err = nn.Jacobian.testJacobianParameters(module, input, module[name], module[gname], lo, hi)
      H.check(err < tol, '%s: gradient of %s off by %g', what, name, err)
      err = nn.Jacobian.testJacobianUpdateParameters(module, input, module[name], lo, hi)
      H.check(err < tol, '%s: direct update of %s off by %g', what, name, err)
      for path, e in pairs(nn.Jacobian.testAllUpdate(module, input, name, gname)) do
         H.check(e < tol, '%s: update of %s through %s off by %g', what, name, path, e)
      end
   end
   local ferr, berr = nn.Jacobian.testIO(module, input, lo, hi)
   H.check(ferr == 0 and berr == 0, '%s: a saved and reloaded copy differs (%g, %g)', what, ferr, berr)
end

local failures, cases = {}, 0

function H.case(name, f)
   cases = cases + 1
   local ok, err = xpcall(f, debug.traceback)
   if ok then
      print('PASS ' .. name)
   else
      print('FAIL ' .. name .. ': ' .. tostring(err))
      failures[#failures + 1] = name
   end
end

-- Ends the script: "ok (n cases)" or an error listing the failed cases.
function H.finish()
   if #failures > 0 then
      error(string.format('%d of %d case(s) failed: %s', #failures, cases, table.concat(failures, ', ')), 0)
   end
   print(string.format('ok (%d cases)', cases))
end

torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(1234)
math.randomseed(1234)

return H
