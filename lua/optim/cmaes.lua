-- optim.cmaes(opfunc, x[, config[, state]]): the Covariance Matrix Adaptation Evolution Strategy,
-- after N. Hansen's barecmaes2 (https://www.lri.fr/~hansen/barecmaes2.html). Needs only f(x):
-- opfunc's gradient is ignored. Candidates are drawn from torch's global generator.
--
-- config (state when config is not given): sigma (required: the initial standard deviation in
-- each coordinate), maxEval (1e3 N^2, N the number of elements of x), ftarget (stop once f is
-- below), popsize (4 + floor(3 log N)), verb_disp (0: print progress every verb_disp iterations),
-- min_iterations (1).
-- Returns the best point found (a new tensor shaped as x; x itself is not changed), the table of
-- f values (f at x, the best of each generation, then the best overall), and the number of
-- evaluations.
local checks = require 'optim.checks'
local linalg = require 'optim.linalg'

local NAME = 'optim.cmaes'

-- Eigenvalues (ascending) and eigenvectors (columns) of the symmetric C: torch.symeig where
-- torch has it, else optim's own Jacobi iteration.
local function symeig(C)
   if torch.symeig then return torch.symeig(C, 'V') end
   return linalg.symeig(C)
end

return function(opfunc, x, config, state)
   checks.args(NAME, opfunc, x, config, state)
   config = config or {}
   state = state or config
   -- Torch read these from state; config is read first, so that either place works.
   local function option(key, default)
      if config[key] ~= nil then return checks.number(NAME, config, key, default) end
      return checks.number(NAME, state, key, default)
   end
   local xmean = x:clone():view(-1)
   local N = xmean:size(1)
   local sigma = option('sigma')
   if not sigma then
      checks.fail(NAME, 'config.sigma (the initial step size) is required')
   end
   local ftarget = option('ftarget')
   local maxEval = option('maxEval', 1e3 * N ^ 2)
   local verb_disp = option('verb_disp', 0)
   local min_iterations = option('min_iterations', 1)
   local lambda = option('popsize', 4 + math.floor(3 * math.log(N)))

   -- Selection: the best mu of lambda candidates, weighted log-linearly. mu keeps its fraction in
   -- the weights' formula, as in barecmaes2; floor(mu) parents are used.
   local mu = lambda / 2
   local nmu = math.floor(mu)
   local weights = torch.DoubleTensor(nmu)
   for i = 1, nmu do weights[i] = math.log(mu + 0.5) - math.log(i) end
   weights:div(weights:sum())
   local mueff = weights:sum() ^ 2 / torch.pow(weights, 2):sum()
   weights = weights:typeAs(xmean)

   -- Adaptation constants.
   local cc = (4 + mueff / N) / (N + 4 + 2 * mueff / N)
   local cs = (mueff + 2) / (N + mueff + 5)
   local c1 = 2 / ((N + 1.3) ^ 2 + mueff)
   local cmu = math.min(1 - c1, 2 * (mueff - 2 + 1 / mueff) / ((N + 2) ^ 2 + mueff))
   local damps = 2 * mueff / lambda + 0.3 + cs

   -- The distribution: mean xmean, covariance sigma^2 C = sigma^2 B D^2 B'.
   local pc = xmean.new(N):zero()          -- evolution path of C
   local ps = xmean.new(N):zero()          -- evolution path of sigma
   local B = torch.eye(N):typeAs(xmean)
   local D = xmean.new(N):fill(1)
   local C = torch.eye(N):typeAs(xmean)
   local invsqrtC = torch.eye(N):typeAs(xmean)
   local eigeneval, counteval = 0, 0
   local candidates = xmean.new(lambda, N)
   local fitvals = torch.Tensor(lambda)
   local best = { f = nil, x = nil, evals = nil }
   local f_hist = { checks.value(NAME, (opfunc(x))) }

   -- Draws lambda candidates m + sigma B D z, z ~ N(0, I).
   local function ask()
      -- The O(N^3) decomposition is refreshed only every so many evaluations.
      if counteval - eigeneval > lambda / (c1 + cmu) / N / 10 then
         eigeneval = counteval
         C = torch.triu(C) + torch.triu(C, 1):t()   -- exactly symmetric
         D, B = symeig(C)
         D = torch.sqrt(D)
         invsqrtC = B * torch.diag(torch.pow(D, -1)) * B:t()
      end
      for k = 1, lambda do
         local z = D:clone():normal(0, 1):cmul(D)
         candidates[k]:copy(xmean):add(sigma, B * z)
      end
      return candidates
   end

   -- Moves the distribution towards the best candidates.
   local function tell(arx)
      counteval = counteval + lambda
      local xold = xmean:clone()

      local sorted, order = torch.sort(fitvals)
      fitvals = sorted
      local parents = arx:index(1, order[{ { 1, nmu } }])
      f_hist[#f_hist + 1] = fitvals[1]
      if best.f == nil or fitvals[1] < best.f then
         best.x, best.f, best.evals = parents[1]:clone(), fitvals[1], counteval
      end

      xmean:zero():addmv(parents:t(), weights)

      -- Cumulation: the evolution paths.
      local y = xmean - xold
      local z = invsqrtC * y
      ps:mul(1 - cs):add(math.sqrt(cs * (2 - cs) * mueff) / sigma, z)
      local hsig = torch.pow(ps, 2):sum() / (1 - (1 - cs) ^ (2 * counteval / lambda)) / N
         < 2 + 4 / (N + 1)
      hsig = hsig and 1 or 0
      pc:mul(1 - cc):add(math.sqrt(cc * (2 - cc) * mueff) / sigma * hsig, y)

      -- Rank-one and rank-mu updates of C:
      -- C += -(c1a + cmu) C + c1 pc pc' + cmu sum_k w_k (x_k - xold)(x_k - xold)' / sigma^2
      local c1a = c1 - (1 - hsig ^ 2) * c1 * cc * (2 - cc)
      local steps = parents - xold:view(1, N):expand(nmu, N)
      local weighted = steps:clone():cmul(weights:view(nmu, 1):expand(nmu, N))
      local Cmu = (steps:t() * weighted):div(sigma ^ 2)
      C:mul(1 - c1a - cmu):addr(c1, pc, pc):add(cmu, Cmu)

      -- Step size: grows when the path is longer than a random walk's, by at most exp(0.6).
      sigma = sigma * math.exp(math.min(0.6,
         (cs / damps) * (torch.pow(ps, 2):sum() / N - 1) / 2))
   end

   -- The termination criteria met, as {name = value}; empty to go on.
   local function stop()
      local res = {}
      if counteval > 0 then
         if counteval >= maxEval then res.evals = maxEval end
         if ftarget ~= nil and fitvals[1] <= ftarget then res.ftarget = ftarget end
         if D:max() > 1e7 * D:min() then res.condition = 1e7 end
         if fitvals[lambda] - fitvals[1] < 1e-12 then res.tolfun = 1e-12 end
         if sigma * D:max() < 1e-11 then res.tolx = 1e-11 end
      end
      return res
   end

   local function disp()
      if verb_disp <= 0 then return end
      local iteration = counteval / lambda
      if iteration == 1 or iteration % (10 * verb_disp) == 0 then
         print('evals:\t ax-ratio max(std)   f-value')
      end
      if iteration <= 2 or iteration % verb_disp == 0 then
         local max_std = math.sqrt(torch.diag(C):max())
         print(tostring(counteval) .. ': '
            .. string.format(' %6.1f %8.1e ', D:max() / D:min(), sigma * max_std)
            .. tostring(fitvals[1]))
      end
   end

   local iteration = 0
   while next(stop()) == nil or iteration < min_iterations do
      iteration = iteration + 1
      local X = ask()
      for i = 1, lambda do
         -- Each candidate in x's shape.
         fitvals[i] = checks.value(NAME, (opfunc(X[i]:viewAs(x))))
      end
      tell(X)
      disp()
   end

   if verb_disp > 0 then
      for k, v in pairs(stop()) do print('termination by', k, '=', v) end
      print('best f-value =', best.f)
      print('solution = ')
      print(best.x)
      print('best found at iteration: ', best.evals / lambda, ' , total iterations: ', iteration)
   end
   f_hist[#f_hist + 1] = best.f
   return best.x:viewAs(x), f_hist, counteval
end
