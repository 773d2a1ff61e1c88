-- optim.FistaLS(f, g, pl, xinit[, params]): FISTA with a backtracking line search (Beck and
-- Teboulle, "A Fast Iterative Shrinkage-Thresholding Algorithm for Linear Inverse Problems",
-- SIAM J. Imaging Sciences 2(1), 2009), for min f(x) + g(x) with f smooth and g not.
--
-- f(x[, 'dx']): the smooth part's value, and with 'dx' also its gradient; g(x): the non-smooth
-- part's value; pl(x, L): solves the proximal problem in place (for an L1 penalty, shrinkage by
-- lambda / L). The iteration starts from zero; xinit receives the solution.
-- params: L (0.1, 1 / step size), Lstep (1.5, L's growth per line-search step), maxiter (50),
-- maxline (20, line-search steps per iteration), errthres (1e-4, stop when F changes less),
-- doFistaUpdate (true: FISTA; false or nil: plain ISTA, as in Torch), verbose (false: true prints
-- each step and keeps each iterate in the history).
-- params also receives the last L and keeps its buffers xkm, y and ply for the next call.
-- Returns the solution and the history: per iteration {nline, L, F, Fply, Gply, Q}.
local checks = require 'optim.checks'

local NAME = 'optim.FistaLS'

return function(f, g, pl, xinit, params)
   local fns = { f, g, pl }
   for i = 1, 3 do
      local fn = fns[i]
      if type(fn) ~= 'function' then
         checks.fail(NAME, 'bad argument #' .. i .. ' (a function expected, got ' .. type(fn) .. ')')
      end
   end
   if not torch.isTensor(xinit) then
      checks.fail(NAME, 'bad argument #4 (a tensor xinit expected, got ' .. torch.type(xinit) .. ')')
   end
   params = params or {}
   local L = checks.number(NAME, params, 'L', 0.1)
   local Lstep = checks.number(NAME, params, 'Lstep', 1.5)
   local maxiter = checks.number(NAME, params, 'maxiter', 50)
   local maxline = checks.number(NAME, params, 'maxline', 20)
   local errthres = checks.number(NAME, params, 'errthres', 1e-4)
   local doFistaUpdate = params.doFistaUpdate
   local verbose = params.verbose

   params.xkm = params.xkm or torch.Tensor()    -- the previous iterate
   params.y = params.y or torch.Tensor()        -- the point the next step starts from
   params.ply = params.ply or torch.Tensor()    -- pl(y - grad f(y) / L)
   local xk = xinit
   local xkm = params.xkm:resizeAs(xk):zero()
   local ply = params.ply:resizeAs(xk):zero()
   local y = params.y:resizeAs(xk):zero()

   local history = {}
   local tk = 1         -- FISTA's momentum parameter t(k)
   local fval = math.huge
   for niter = 1, maxiter do
      local fy, gfy = f(y, 'dx')

      -- Line search: grow L until F(p_L(y)) lies below the quadratic model
      -- Q(p, y) = f(y) + <p - y, grad f(y)> + L/2 |p - y|^2.
      local nline, Q, fply = 0, 0, 0
      while true do
         ply:copy(y):add(-1 / L, gfy)
         pl(ply, L)
         xk:copy(ply)
         fply = f(ply)
         ply:add(-1, y)
         local Q2 = gfy:dot(ply)
         local Q3 = L / 2 * ply:dot(ply)
         Q = fy + Q2 + Q3
         if verbose then
            print(string.format('nline=%d L=%g fply=%g Q=%g fy=%g Q2=%g Q3=%g',
               nline, L, fply, Q, fy, Q2, Q3))
         end
         nline = nline + 1
         if fply <= Q then break end
         if nline > maxline then
            xk:copy(xkm)   -- no acceptable point: stay at the previous iterate
            break
         end
         L = L * Lstep
      end

      local tkp = 0
      if doFistaUpdate then
         -- y(k+1) = x(k) + (t(k) - 1) / t(k+1) (x(k) - x(k-1))
         tkp = (1 + math.sqrt(1 + 4 * tk * tk)) / 2
         xkm:add(-1, xk)
         y:copy(xk):add((1 - tk) / tkp, xkm)
         xkm:copy(xk)
      else
         y:copy(xk)
      end
      tk = tkp
      fply = f(y)
      local gply = g(y)
      if verbose then
         print(string.format('iter=%d eold=%g enew=%g', niter - 1, fval, fply + gply))
      end

      fval = fply + gply
      history[niter] = { nline = nline, L = L, F = fval, Fply = fply, Gply = gply, Q = Q }
      params.L = L
      if verbose then
         history[niter].xk = xk:clone()
         history[niter].y = y:clone()
      end

      if (niter > 1 and math.abs(history[niter].F - history[niter - 1].F) <= errthres)
         or niter >= maxiter then
         xinit:copy(y)
         return y, history
      end
   end
   -- maxiter < 1: no iteration at all.
   xinit:copy(y)
   return y, history
end
