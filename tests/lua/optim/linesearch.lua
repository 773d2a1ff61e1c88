-- polyinterp, lswolfe and checkgrad, against values worked out by hand.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

-- polyinterp, two points without bounds: the cubic through (0, 0, -1) and (1, 0, 1) is
-- p(x) = x (x - 1) (a x + b) with p'(0) = -b = -1 and p'(1) = a + b = 1, so p = x^2 - x,
-- minimum at 0.5.
H.near(optim.polyinterp(torch.Tensor { { 0, 0, -1 }, { 1, 0, 1 } }), 0.5, 1e-12, 'cubic minimum')
-- The points may come in either order, and as a table.
H.near(optim.polyinterp({ { 1, 0, 1 }, { 0, 0, -1 } }), 0.5, 1e-12, 'cubic minimum, reversed')
-- p = x^3 - x through (0, 0, -1) and (2, 6, 11): minimum at 1 / sqrt(3).
H.near(optim.polyinterp(torch.Tensor { { 0, 0, -1 }, { 2, 6, 11 } }), 1 / math.sqrt(3), 1e-12,
   'x^3 - x')
-- A cubic without a real minimiser between the points gives their middle: p = x^3 + x.
H.near(optim.polyinterp(torch.Tensor { { 0, 0, 1 }, { 1, 2, 4 } }), 0.5, 1e-12, 'no minimum')

-- With bounds: the same x^3 - x on [-2, 2] (its local minimum 1/sqrt(3) is lower than f(2) = 6
-- but f(-2) = -6 is lower still), and on [0, 0.5] (the bound 0.5 is lowest).
local pos, fmin = optim.polyinterp(torch.Tensor { { 0, 0, -1 }, { 2, 6, 11 } }, -2, 2)
H.near(pos, -2, 1e-9, 'bounded minimum at the lower bound')
H.near(fmin, -6, 1e-9, 'value at the lower bound')
pos, fmin = optim.polyinterp(torch.Tensor { { 0, 0, -1 }, { 2, 6, 11 } }, 0, 2)
H.near(pos, 1 / math.sqrt(3), 1e-9, 'bounded interior minimum')
H.near(fmin, 1 / 3 ^ 1.5 - 1 / math.sqrt(3), 1e-9, 'value at the interior minimum')
-- Three points of the quintic x^5 - 5x (slopes 5x^4 - 5): its minimum on [0, 2] is at 1.
pos = optim.polyinterp(torch.Tensor { { 0, 0, -5 }, { 0.5, 0.5 ^ 5 - 2.5, 5 * 0.5 ^ 4 - 5 },
   { 2, 22, 75 } }, 0, 2)
H.near(pos, 1, 1e-6, 'quintic minimum')
H.errors(function() optim.polyinterp(torch.Tensor(2, 2)) end, 'optim.polyinterp: points must be')

-- lswolfe on the quadratic f = (x - 3)^2 from 0 along d = 1: the strong Wolfe conditions hold at
-- the step it returns, and x is left at x0 + t d.
do
   local function f(x) local r = x[1] - 3 return r * r, torch.Tensor { 2 * r } end
   local x = torch.Tensor { 0 }
   local d = torch.Tensor { 1 }
   local f0, g0 = f(x)
   local gtd = g0:dot(d)
   local fn, gn, xn, t, evals = optim.lswolfe(f, x, 1, d, f0, g0, gtd)
   assert(xn == x, 'lswolfe moves x in place')
   H.near(x[1], t, 1e-12, 'x = x0 + t d')
   H.near(fn, (f(x)), 1e-12, 'f at the new x')
   H.near(gn[1], 2 * (x[1] - 3), 1e-12, 'g at the new x')
   assert(fn <= f0 + 1e-4 * t * gtd, 'sufficient decrease')
   assert(math.abs(gn:dot(d)) <= 0.9 * math.abs(gtd), 'curvature condition')
   assert(evals >= 1 and evals <= 20, 'evaluations: ' .. evals)
   -- With a tight curvature condition the exact minimiser 3 is found.
   x:fill(0)
   local _, _, _, t2 = optim.lswolfe(f, x, 1, d, f0, g0, gtd, { c2 = 1e-6 })
   H.near(t2, 3, 1e-6, 'step to the minimum')
end

-- checkgrad: a right gradient agrees to about eps^2, a wrong one does not.
do
   local x = torch.Tensor { -1.2, 1, 0.5 }
   local diff, dC, dC_est = optim.checkgrad(H.rosenbrock, x, 1e-6)
   assert(diff < 1e-8, 'checkgrad of a right gradient: ' .. diff)
   H.near_all(dC_est, dC:totable(), 1e-4, 'estimate')
   H.near_all(x, { -1.2, 1, 0.5 }, 0, 'x restored')
   local function wrong(v) local fv, gv = H.rosenbrock(v) return fv, gv:mul(1.1) end
   diff = optim.checkgrad(wrong, x)
   assert(diff > 0.01, 'checkgrad of a wrong gradient: ' .. diff)
end

print('ok')
