-- th optim/minimise.lua NAME: the optimiser NAME minimises Rosenbrock's function and/or a
-- quadratic to a stated tolerance (each case below says which). Prints ok.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

-- Steps the optimiser n times on fn from zero and checks f < tol at the end.
local function steps(name, fn, dim, config, n, tol)
   local x, state = torch.zeros(dim), {}
   for _ = 1, n do optim[name](fn, x, config, state) end
   local f = fn(x)
   if not (f < tol) then
      H.fail(string.format('%s %s: f = %.3e after %d steps, expected below %g (x = %s)', name,
         fn == H.rosenbrock and 'rosenbrock' or 'quadratic', f, n, tol,
         table.concat(x:totable(), ', ')))
   end
   return x, state
end

local cases = {}

function cases.sgd()
   steps('sgd', H.quadratic, 5, { learningRate = 0.1 }, 300, 1e-20)
   steps('sgd', H.quadratic, 5, { learningRate = 0.05, momentum = 0.5 }, 300, 1e-12)
   steps('sgd', H.quadratic, 5,
      { learningRate = 0.05, momentum = 0.5, dampening = 0, nesterov = true }, 200, 1e-16)
   steps('sgd', H.rosenbrock, 2, { learningRate = 1e-3 }, 10000, 1e-4)
end

function cases.nag()
   steps('nag', H.quadratic, 5, { learningRate = 0.05, momentum = 0.5 }, 300, 1e-20)
end

function cases.adam()
   steps('adam', H.quadratic, 5, { learningRate = 0.1 }, 1000, 1e-20)
   steps('adam', H.rosenbrock, 2, { learningRate = 0.02 }, 2000, 1e-8)
end

function cases.adamax()
   steps('adamax', H.quadratic, 5, { learningRate = 0.1 }, 1000, 1e-20)
end

function cases.adagrad()
   steps('adagrad', H.quadratic, 5, { learningRate = 1 }, 1000, 1e-20)
   steps('adagrad', H.rosenbrock, 2, { learningRate = 0.1 }, 3000, 1e-3)
end

function cases.adadelta()
   steps('adadelta', H.quadratic, 5, { rho = 0.95, eps = 1e-6 }, 3000, 1e-20)
end

function cases.rmsprop()
   steps('rmsprop', H.quadratic, 5, { learningRate = 0.01 }, 2000, 1e-20)
   steps('rmsprop', H.rosenbrock, 2, { learningRate = 5e-4 }, 5000, 1e-3)
end

function cases.rprop()
   steps('rprop', H.quadratic, 5, { stepsize = 0.1 }, 300, 1e-10)
end

function cases.asgd()
   local x, state = steps('asgd', H.quadratic, 5, { eta0 = 0.1, lambda = 0, t0 = 100 }, 1000, 1e-20)
   -- The average of the iterates from step 100 on is near too.
   H.near_all(state.ax, H.quadratic_centre(5):totable(), 1e-5, 'asgd average')
   assert(x ~= state.ax)
end

function cases.lbfgs()
   -- Fixed steps of 0.1, 100 iterations.
   local x = torch.zeros(2)
   local _, fs, evals = optim.lbfgs(H.rosenbrock, x, { maxIter = 100, learningRate = 0.1 })
   assert(fs[#fs] < 1e-6 and H.rosenbrock(x) < 1e-6, 'lbfgs batch: f = ' .. fs[#fs])
   H.eq(evals, 100, 'lbfgs evaluations')
   -- Stochastic use: one iteration per call, the state carrying the history.
   x = torch.zeros(2)
   local config = { maxIter = 1, learningRate = 0.1 }
   for _ = 1, 100 do optim.lbfgs(H.rosenbrock, x, config) end
   assert(H.rosenbrock(x) < 1e-6, 'lbfgs stochastic: f = ' .. H.rosenbrock(x))
   -- A quadratic is solved at once (to tolFun).
   x = torch.zeros(5)
   optim.lbfgs(H.quadratic, x, { maxIter = 100 })
   H.near_all(x, H.quadratic_centre(5):totable(), 1e-5, 'lbfgs on the quadratic')
end

function cases.lbfgs_lswolfe()
   local x = torch.zeros(2)
   local _, fs, evals = optim.lbfgs(H.rosenbrock, x, { maxIter = 100, lineSearch = optim.lswolfe })
   assert(fs[#fs] < 1e-10, 'lbfgs with lswolfe, 2-D: f = ' .. fs[#fs])
   assert(evals < 60, 'lbfgs with lswolfe took ' .. evals .. ' evaluations')
   x = torch.zeros(10)
   _, fs = optim.lbfgs(H.rosenbrock, x, { maxIter = 500, lineSearch = optim.lswolfe })
   assert(fs[#fs] < 1e-8, 'lbfgs with lswolfe, 10-D: f = ' .. fs[#fs])
end

function cases.cg()
   local x = torch.zeros(2)
   local _, fs, evals = optim.cg(H.rosenbrock, x, { maxIter = 50 })
   assert(fs[#fs] < 1e-8 and H.rosenbrock(x) < 1e-8, 'cg 2-D: f = ' .. fs[#fs])
   -- maxEval (1.25 maxIter) is checked between line searches: the last one may go past it.
   assert(evals <= 50 * 1.25 + 20, 'cg used ' .. evals .. ' evaluations')
   x = torch.zeros(10)
   _, fs = optim.cg(H.rosenbrock, x, { maxEval = 2000 })
   assert(fs[#fs] < 1e-12, 'cg 10-D: f = ' .. fs[#fs])
end

function cases.cmaes()
   torch.manualSeed(1)
   local x = torch.zeros(5)
   local best, fs, evals = optim.cmaes(H.rosenbrock, x, { sigma = 0.5, maxEval = 10000 })
   assert(H.rosenbrock(best) < 1e-10, 'cmaes: f = ' .. H.rosenbrock(best))
   H.eq(fs[#fs], (H.rosenbrock(best)), 'cmaes: the last f is the best point\'s')
   assert(evals <= 10000, 'cmaes used ' .. evals .. ' evaluations')
   H.near_all(x, { 0, 0, 0, 0, 0 }, 0, 'cmaes leaves x as it was')
   -- The quadratic, from a 2-D tensor: the result has x's shape.
   local x2 = torch.zeros(2, 2)
   best = optim.cmaes(function(v) return H.quadratic(v:view(4)) end, x2,
      { sigma = 1, ftarget = 1e-12 })
   H.eq(best:dim(), 2, 'cmaes result shape')
   H.near_all(best, H.quadratic_centre(4):totable(), 1e-5, 'cmaes on the quadratic')
end

function cases.de()
   local best, fx = optim.de(H.rosenbrock, torch.zeros(2),
      { popsize = 50, scaleFactor = 0.5, crossoverRate = 0.9, maxFEs = 3000 })
   assert(H.rosenbrock(best) < 1e-10, 'de: f = ' .. H.rosenbrock(best))
   H.eq(fx:nElement(), 3000, 'de returns every f computed')
   H.near(fx:min(), (H.rosenbrock(best)), 0, 'de: the best f is the best point\'s')
   -- The same run again: the population has a generator of its own.
   torch.manualSeed(7)
   local again = optim.de(H.rosenbrock, torch.zeros(2),
      { popsize = 50, scaleFactor = 0.5, crossoverRate = 0.9, maxFEs = 3000 })
   H.near_all(again, best:totable(), 0, 'de repeats exactly')
end

-- The lasso min |x - b|^2 + lambda |x|_1, whose solution is b soft-thresholded by lambda / 2.
function cases.fista()
   local b = torch.Tensor { 3, -0.2, 0.05, -2, 0.7 }
   local lambda = 0.5
   local function f(x, mode)
      local r = x - b
      if mode == 'dx' then return r:dot(r), r:mul(2) end
      return r:dot(r)
   end
   local function g(x) return lambda * x:norm(1) end
   local function pl(x, L)
      -- Soft thresholding by lambda / L, in place.
      local t = lambda / L
      x:copy(torch.cmul(torch.sign(x), (torch.abs(x) - t):clamp(0, math.huge)))
   end
   local expected = {}
   for i = 1, b:size(1) do
      local v = b[i]
      expected[i] = v > 0 and math.max(v - lambda / 2, 0) or math.min(v + lambda / 2, 0)
   end
   for _, fista in ipairs { true, false } do
      local x = torch.zeros(b:size(1))
      local params = { doFistaUpdate = fista, maxiter = 200, errthres = 1e-12 }
      local sol, history = optim.FistaLS(f, g, pl, x, params)
      H.near_all(sol, expected, 1e-5, (fista and 'FISTA' or 'ISTA') .. ' solution')
      H.near_all(x, expected, 1e-5, 'xinit receives the solution')
      assert(#history >= 1 and history[#history].F, 'history of F')
      assert(params.L and params.L >= 0.1, 'params.L is the last L')
   end
end

local name = arg[1]
if not cases[name] then error('no case ' .. tostring(name)) end
cases[name]()
print('ok')
