-- optim.lbfgs(opfunc, x[, config[, state]]): limited-memory BFGS (after minFunc, M. Schmidt).
-- Without config.lineSearch each iteration takes a fixed step of config.learningRate along the
-- quasi-Newton direction, which suits noisy (stochastic) objectives; with one (optim.lswolfe) the
-- step is searched for.
--
-- config: maxIter (20), maxEval (1.25 maxIter), tolFun (1e-5, stop when sum |df/dx| is below),
-- tolX (1e-9, stop when the step or the change of f is below), nCorrection (100, the history
-- kept), lineSearch, lineSearchOptions, learningRate (1), verbose (false).
-- state (config when not given): funcEval and nIter (totals over all calls), the history old_dirs
-- (steps s) and old_stps (gradient changes y), Hdiag, d, t, g_old, f_old, and buffers (tmp1,
-- dir_bufs, stp_bufs, ro, al). A later call goes on from this state.
-- Returns x (moved in place), the table of f values (f[1] at the start, f[#f] at the end), and the
-- number of evaluations this call made.
local checks = require 'optim.checks'

local NAME = 'optim.lbfgs'

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local maxIter = checks.number(NAME, config, 'maxIter', 20)
   local maxEval = checks.number(NAME, config, 'maxEval', maxIter * 1.25)
   local tolFun = checks.number(NAME, config, 'tolFun', 1e-5)
   local tolX = checks.number(NAME, config, 'tolX', 1e-9)
   local nCorrection = checks.number(NAME, config, 'nCorrection', 100)
   local lineSearch = config.lineSearch
   local lineSearchOpts = config.lineSearchOptions
   local learningRate = checks.number(NAME, config, 'learningRate', 1)
   if lineSearch ~= nil and type(lineSearch) ~= 'function' then
      checks.fail(NAME, 'config.lineSearch must be a function such as optim.lswolfe, got '
         .. type(lineSearch))
   end
   local function verbose(...)
      if config.verbose then print('<optim.lbfgs> ', ...) end
   end

   state.funcEval = state.funcEval or 0
   state.nIter = state.nIter or 0

   local f, g = checks.eval(NAME, opfunc, x, true)
   local f_hist = { f }
   local currentFuncEval = 1
   state.funcEval = state.funcEval + 1
   local p = g:nElement()

   state.tmp1 = state.tmp1 or g.new(g:size()):zero()
   local tmp1 = state.tmp1
   if tmp1:copy(g):abs():sum() <= tolFun then
      verbose('optimality condition below tolFun')
      return x, f_hist, currentFuncEval
   end

   -- Pools of vectors for the history, allocated once: an update takes a pair from the pools,
   -- and a pair dropped from the history goes back.
   if not state.dir_bufs then
      verbose('creating recyclable direction/step/history buffers')
      state.dir_bufs, state.stp_bufs = {}, {}
      for i = 1, nCorrection + 1 do
         state.dir_bufs[i] = g.new(p)
         state.stp_bufs[i] = g.new(p)
      end
   end

   -- Where the previous call left off.
   local d, t = state.d, state.t
   local old_dirs, old_stps = state.old_dirs, state.old_stps
   local Hdiag, g_old, f_old = state.Hdiag, state.g_old, state.f_old

   local nIter = 0
   while nIter < maxIter do
      nIter = nIter + 1
      state.nIter = state.nIter + 1

      -- The descent direction.
      if state.nIter == 1 then
         d = g:clone():mul(-1)
         old_dirs, old_stps = {}, {}
         Hdiag = 1
      else
         -- Remember the last step s = t d and the gradient change y = g - g_old, if the pair
         -- keeps the approximation positive definite (y . s > 0).
         local y = table.remove(state.dir_bufs)
         local s = table.remove(state.stp_bufs)
         y:view(g:size()):add(g, -1, g_old)
         s:view(d:size()):mul(d, t)
         local ys = y:dot(s)
         if ys > 1e-10 then
            if #old_dirs == nCorrection then
               table.insert(state.dir_bufs, table.remove(old_dirs, 1))
               table.insert(state.stp_bufs, table.remove(old_stps, 1))
            end
            table.insert(old_dirs, s)
            table.insert(old_stps, y)
            -- Scale of the initial inverse Hessian: y . s / y . y.
            Hdiag = ys / y:dot(y)
         else
            table.insert(state.dir_bufs, y)
            table.insert(state.stp_bufs, s)
         end

         -- d = -H g by the two-loop recursion, with H the L-BFGS inverse Hessian.
         local k = #old_dirs
         state.ro = state.ro or torch.Tensor(nCorrection)
         state.al = state.al or torch.zeros(nCorrection)
         local ro, al = state.ro, state.al
         for i = 1, k do ro[i] = 1 / old_stps[i]:dot(old_dirs[i]) end

         local q = tmp1:view(p)
         q:copy(g):mul(-1)
         for i = k, 1, -1 do
            al[i] = old_dirs[i]:dot(q) * ro[i]
            q:add(-al[i], old_stps[i])
         end
         local r = d:view(p)
         r:mul(q, Hdiag)
         for i = 1, k do
            local be_i = old_stps[i]:dot(r) * ro[i]
            r:add(al[i] - be_i, old_dirs[i])
         end
      end
      g_old = g_old or g:clone()
      g_old:copy(g)
      f_old = f

      -- The directional derivative: no descent along d means nothing more to gain.
      local gtd = g:dot(d)
      if gtd > -tolX then break end

      -- The first step ever is scaled down by the gradient's size.
      if state.nIter == 1 then
         t = math.min(1, 1 / tmp1:copy(g):abs():sum()) * learningRate
      else
         t = learningRate
      end

      local lsFuncEval = 0
      if lineSearch then
         f, g, x, t, lsFuncEval = lineSearch(opfunc, x, t, d, f, g, gtd, lineSearchOpts)
         f_hist[#f_hist + 1] = f
      else
         x:add(t, d)
         -- The last iteration does not evaluate the new point: with a noisy objective the
         -- value would not be used.
         if nIter ~= maxIter then
            f, g = checks.eval(NAME, opfunc, x, true)
            lsFuncEval = 1
            f_hist[#f_hist + 1] = f
         end
      end
      currentFuncEval = currentFuncEval + lsFuncEval
      state.funcEval = state.funcEval + lsFuncEval

      -- Stopping tests.
      if nIter == maxIter then
         verbose('reached max number of iterations')
         break
      end
      if currentFuncEval >= maxEval then
         verbose('max nb of function evals')
         break
      end
      if tmp1:copy(g):abs():sum() <= tolFun then
         verbose('optimality condition below tolFun')
         break
      end
      if tmp1:copy(d):mul(t):abs():sum() <= tolX then
         verbose('step size below tolX')
         break
      end
      if math.abs(f - f_old) < tolX then
         verbose('function value changing less than tolX')
         break
      end
   end

   state.old_dirs, state.old_stps = old_dirs, old_stps
   state.Hdiag, state.g_old, state.f_old = Hdiag, g_old, f_old
   state.t, state.d = t, d
   return x, f_hist, currentFuncEval
end
