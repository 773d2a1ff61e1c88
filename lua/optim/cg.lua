-- optim.cg(opfunc, x[, config[, state]]): nonlinear conjugate gradients (Polak-Ribiere) with a
-- line search by cubic interpolation and extrapolation and the Wolfe-Powell conditions: Carl E.
-- Rasmussen's minimize.m, step for step. Only the number of function evaluations is limited.
--
-- config: maxEval (1.25 maxIter), maxIter (20: at most this many evaluations per line search),
-- rho (0.01) and sig (0.5) (the Wolfe-Powell constants), int (0.1, do not re-evaluate within this
-- fraction of the bracket), ext (3.0, extrapolate at most this many times the step), ratio (100,
-- the largest slope ratio).
-- state (config when not given): buffers df0, df1, df2, df3, s (the search direction) and x0; pass
-- tensors there to reuse them.
-- Returns x (moved in place), the table of f values (f[1] at the start, then after each successful
-- line search), and the number of evaluations.
local checks = require 'optim.checks'

local NAME = 'optim.cg'

local function bad(z) return z ~= z or z == math.huge or z == -math.huge end

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   local rho = checks.number(NAME, config, 'rho', 0.01)
   local sig = checks.number(NAME, config, 'sig', 0.5)
   local int = checks.number(NAME, config, 'int', 0.1)
   local ext = checks.number(NAME, config, 'ext', 3.0)
   local maxIter = checks.number(NAME, config, 'maxIter', 20)
   local ratio = checks.number(NAME, config, 'ratio', 100)
   local maxEval = checks.number(NAME, config, 'maxEval', maxIter * 1.25)
   local red = 1

   local df0 = (state.df0 or x.new()):resizeAs(x)
   local df1 = (state.df1 or x.new()):resizeAs(x)
   local df2 = (state.df2 or x.new()):resizeAs(x)
   local df3 = (state.df3 or x.new()):resizeAs(x)
   local s = (state.s or x.new()):resizeAs(x)
   local x0 = (state.x0 or x.new()):resizeAs(x)

   local evals = 0
   -- f at x, with its gradient copied into `into`.
   local function evaluate(into)
      local f, df = checks.eval(NAME, opfunc, x, true)
      into:copy(df)
      evals = evals + 1
      return f
   end

   local fx = {}
   local f1 = evaluate(df1)
   fx[#fx + 1] = f1

   s:copy(df1):mul(-1)             -- start downhill
   local d1 = -s:dot(s)            -- the slope
   local z1 = red / (1 - d1)       -- the initial step
   local ls_failed = false

   while evals < math.abs(maxEval) do
      x0:copy(x)
      local f0 = f1
      df0:copy(df1)

      x:add(z1, s)
      local f2 = evaluate(df2)
      local d2 = df2:dot(s)
      -- Point 3 starts as point 1.
      local f3, d3, z3 = f1, d1, -z1
      local m = math.min(maxIter, maxEval - evals)
      local success = false
      local limit = -1

      while true do
         -- Interpolate while the Wolfe-Powell conditions fail and evaluations remain.
         while (f2 > f1 + z1 * rho * d1 or d2 > -sig * d1) and m > 0 do
            limit = z1
            local z2
            if f2 > f1 then
               z2 = z3 - (0.5 * d3 * z3 * z3) / (d3 * z3 + f2 - f3)     -- quadratic fit
            else
               local A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)             -- cubic fit
               local B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
               z2 = (math.sqrt(B * B - A * d2 * z3 * z3) - B) / A
            end
            if bad(z2) then z2 = z3 / 2 end
            -- Not too near either end of the bracket.
            z2 = math.max(math.min(z2, int * z3), (1 - int) * z3)
            z1 = z1 + z2
            x:add(z2, s)
            f2 = evaluate(df2)
            m = m - 1
            d2 = df2:dot(s)
            z3 = z3 - z2
         end
         if f2 > f1 + z1 * rho * d1 or d2 > -sig * d1 then
            break                                   -- failure
         elseif d2 > sig * d1 then
            success = true
            break
         elseif m == 0 then
            break                                   -- out of evaluations
         end
         -- Extrapolate by a cubic fit, within limits.
         local A = 6 * (f2 - f3) / z3 + 3 * (d2 + d3)
         local B = 3 * (f3 - f2) - z3 * (d3 + 2 * d2)
         local z2 = -d2 * z3 * z3 / (B + math.sqrt(B * B - A * d2 * z3 * z3))
         if bad(z2) or z2 < 0 then
            if limit < -0.5 then
               z2 = z1 * (ext - 1)                  -- no upper limit: extrapolate the most
            else
               z2 = (limit - z1) / 2                -- else bisect
            end
         elseif limit > -0.5 and z2 + z1 > limit then
            z2 = (limit - z1) / 2
         elseif limit < -0.5 and z2 + z1 > z1 * ext then
            z2 = z1 * (ext - 1)
         elseif z2 < -z3 * int then
            z2 = -z3 * int
         elseif limit > -0.5 and z2 < (limit - z1) * (1 - int) then
            z2 = (limit - z1) * (1 - int)
         end
         f3, d3, z3 = f2, d2, -z2
         z1 = z1 + z2
         x:add(z2, s)
         f2 = evaluate(df2)
         m = m - 1
         d2 = df2:dot(s)
      end

      if success then
         f1 = f2
         fx[#fx + 1] = f1
         -- Polak-Ribiere direction; swap df1 and df2.
         local beta = (df2:dot(df2) - df2:dot(df1)) / df1:dot(df1)
         s:mul(beta):add(-1, df2)
         df1, df2 = df2, df1
         d2 = df1:dot(s)
         if d2 > 0 then
            -- Not downhill: restart along the negative gradient.
            s:copy(df1):mul(-1)
            d2 = -s:dot(s)
         end
         z1 = z1 * math.min(ratio, d1 / (d2 - 1e-320))
         d1 = d2
         ls_failed = false
      else
         -- Back to the point before the line search.
         x:copy(x0)
         f1 = f0
         df1:copy(df0)
         -- Two failures in a row, or no evaluations left: give up. (minimize.m's test; Torch's
         -- port read its 0/1 flag as a Lua truth value and so gave up at the first failure.)
         if ls_failed or evals > maxEval then break end
         df1, df2 = df2, df1
         s:copy(df1):mul(-1)
         d1 = -s:dot(s)
         z1 = 1 / (1 - d1)
         ls_failed = true
      end
   end

   state.df0, state.df1, state.df2, state.df3 = df0, df1, df2, df3
   state.x0, state.s = x0, s
   return x, fx, evals
end
