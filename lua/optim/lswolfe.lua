-- optim.lswolfe(opfunc, x, t, d, f, g, gtd[, options]): a line search along d from x that finds a
-- step t satisfying the strong Wolfe conditions (after minFunc's WolfeLineSearch, M. Schmidt):
-- first a bracket around an acceptable step is sought by extrapolation, then narrowed by cubic
-- interpolation. For optim.lbfgs's config.lineSearch.
--
-- t: the initial step; f, g: the value and gradient at x; gtd: g . d (negative: d descends).
-- options: c1 (1e-4, sufficient decrease), c2 (0.9, curvature), tolX (1e-9, smallest progress),
-- maxIter (20), verbose (false).
-- Returns f and g at the new x, x itself (moved to x + t d in place), t, and the number of
-- evaluations made.
local checks = require 'optim.checks'
local polyinterp = require 'optim.polyinterp'

local NAME = 'optim.lswolfe'
local abs, min, max = math.abs, math.min, math.max

return function(opfunc, x, t, d, f, g, gtd, options)
   checks.args(NAME, opfunc, x)
   for _, v in ipairs { { 't', t }, { 'f', f }, { 'gtd', gtd } } do
      if type(v[2]) ~= 'number' then
         checks.fail(NAME, v[1] .. ' must be a number, got ' .. type(v[2]))
      end
   end
   if not torch.isTensor(d) or not torch.isTensor(g) then
      checks.fail(NAME, 'd and g must be tensors')
   end
   options = options or {}
   local c1 = checks.number(NAME, options, 'c1', 1e-4)
   local c2 = checks.number(NAME, options, 'c2', 0.9)
   local tolX = checks.number(NAME, options, 'tolX', 1e-9)
   local maxIter = checks.number(NAME, options, 'maxIter', 20)
   local function verbose(...)
      if options.verbose then print('<optim.lswolfe> ', ...) end
   end

   -- Evaluates at x_init + step * d. The gradient is copied: opfunc may hand back one buffer that
   -- its next call overwrites.
   local x_init = x:clone()
   local evals = 0
   local function evaluate(step)
      x:copy(x_init):add(step, d)
      local fv, gv = checks.eval(NAME, opfunc, x, true)
      evals = evals + 1
      gv = gv:clone()
      return fv, gv, gv:dot(d)
   end

   -- g is copied too: it may be opfunc's buffer, which the evaluations below overwrite.
   local g0 = g:clone()
   local f_new, g_new, gtd_new = evaluate(t)

   -- Phase 1: find a bracket [lo, hi] of steps that contains an acceptable one, or an acceptable
   -- step outright. Each entry of `bracket` is {step, f, g, g . d}.
   local iter, done, bracket = 0, false, nil
   local prev = { 0, f, g0, gtd }
   while iter < maxIter do
      local cur = { t, f_new, g_new, gtd_new }
      if f_new > f + c1 * t * gtd or (iter > 1 and f_new >= prev[2]) then
         bracket = { prev, cur }    -- not enough decrease: a minimum lies between
         break
      elseif abs(gtd_new) <= -c2 * gtd then
         bracket, done = { cur }, true   -- the strong Wolfe conditions hold here
         break
      elseif gtd_new >= 0 then
         bracket = { prev, cur }    -- the slope turned up: a minimum lies between
         break
      end
      -- Still descending: extrapolate, at least 1% beyond t and at most 10 t.
      local step = polyinterp({ { prev[1], prev[2], prev[4] }, { t, f_new, gtd_new } },
         t + 0.01 * (t - prev[1]), t * 10)
      prev, t = cur, step
      f_new, g_new, gtd_new = evaluate(t)
      iter = iter + 1
   end
   if iter == maxIter then
      bracket = { { 0, f, g0, gtd }, { t, f_new, g_new, gtd_new } }
   end

   -- Phase 2 (zoom): shrink the bracket by cubic interpolation until a step satisfies the
   -- conditions, the bracket is too small to matter, or the evaluations run out.
   local insufficientProgress = false
   while not done and iter < maxIter do
      local loPos = bracket[2][2] < bracket[1][2] and 2 or 1
      local hiPos = 3 - loPos
      local lo = bracket[loPos]
      local bmin, bmax = min(bracket[1][1], bracket[2][1]), max(bracket[1][1], bracket[2][1])

      t = polyinterp({ { bracket[1][1], bracket[1][2], bracket[1][4] },
                       { bracket[2][1], bracket[2][2], bracket[2][4] } })

      -- A trial too close to an end makes little progress: move it 10% into the bracket, unless
      -- the previous trial made progress (then one such step is allowed).
      if min(bmax - t, t - bmin) / (bmax - bmin) < 0.1 then
         if insufficientProgress or t >= bmax or t <= bmin then
            if abs(t - bmax) < abs(t - bmin) then
               t = bmax - 0.1 * (bmax - bmin)
            else
               t = bmin + 0.1 * (bmax - bmin)
            end
            insufficientProgress = false
         else
            insufficientProgress = true
         end
      else
         insufficientProgress = false
      end

      f_new, g_new, gtd_new = evaluate(t)
      iter = iter + 1
      local cur = { t, f_new, g_new, gtd_new }
      if f_new > f + c1 * t * gtd or f_new >= lo[2] then
         bracket[hiPos] = cur      -- the new point is no better: it bounds the bracket
      else
         if abs(gtd_new) <= -c2 * gtd then
            done = true
         elseif gtd_new * (bracket[hiPos][1] - lo[1]) >= 0 then
            bracket[hiPos] = lo    -- the old low end becomes the high end
         end
         bracket[loPos] = cur
      end
      if not done and abs((bracket[1][1] - bracket[2][1]) * gtd_new) < tolX then
         break
      end
   end
   if iter == maxIter then verbose('reached max number of iterations') end

   -- The best point of the bracket.
   local best = bracket[1]
   if bracket[2] and bracket[2][2] < best[2] then best = bracket[2] end
   x:copy(x_init):add(best[1], d)
   return best[2], best[3], x, best[1], evals
end
