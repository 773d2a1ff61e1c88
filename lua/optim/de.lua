-- optim.de(opfunc, x, config): differential evolution (the DE/best/1/bin scheme). Needs only
-- f(x): opfunc's gradient is ignored. The population is drawn from a generator of its own seeded
-- with 1, so a run does not depend on (or disturb) torch's global generator, and repeats exactly.
--
-- config: maxFEs (required: the number of function evaluations), popsize (10 N, N the number of
-- elements of x), scaleFactor (0.5, the weight of the difference vector), crossoverRate (0.9),
-- minRegion (-30) and maxRegion (30) (the box the first population is drawn from).
-- Returns the best point found (a new tensor shaped as x; x itself is not changed) and a tensor of
-- the maxFEs values of f in the order they were computed.
local checks = require 'optim.checks'

local NAME = 'optim.de'

return function(opfunc, x, config)
   checks.args(NAME, opfunc, x, config)
   config = config or {}
   local D = x:nElement()
   local maxFEs = checks.number(NAME, config, 'maxFEs')
   if not maxFEs or maxFEs < 1 then
      checks.fail(NAME, 'config.maxFEs (the number of function evaluations) is required')
   end
   local popsize = checks.number(NAME, config, 'popsize', 10 * D)
   local scaleFactor = checks.number(NAME, config, 'scaleFactor', 0.5)
   local crossoverRate = checks.number(NAME, config, 'crossoverRate', 0.9)
   local maxRegion = checks.number(NAME, config, 'maxRegion', 30)
   local minRegion = checks.number(NAME, config, 'minRegion', -30)
   if popsize < 3 then
      checks.fail(NAME, 'config.popsize must be at least 3 (each child mixes three members)')
   end

   local fx = x.new(maxFEs)
   local fes = 0
   -- f at one member, recorded in fx; false once the budget is spent.
   local function evaluate(member)
      if fes >= maxFEs then return false end
      local v = checks.value(NAME, (opfunc(member:viewAs(x))))
      fes = fes + 1
      fx[fes] = v
      return v
   end

   local gen = torch.Generator()
   torch.manualSeed(gen, 1)
   local pop = x.new(popsize, D):uniform(gen, minRegion, maxRegion)
   local children = x.new(popsize, D)
   local fitness = {}
   for i = 1, popsize do fitness[i] = evaluate(pop[i]) or math.huge end
   -- Torch's de starts its "best" at the member with the largest f, and so do we: the first
   -- generation, mutating around that member, explores more widely (starting at the smallest f
   -- converges early more often on Rosenbrock's function). The first child better than it
   -- replaces it.
   local best = 1
   for i = 2, popsize do
      if fitness[i] > fitness[best] then best = i end
   end
   local bestFitness = fitness[best]
   local bestSolution = pop[best]:clone()

   while fes < maxFEs do
      local childFitness = {}
      for i = 1, popsize do
         -- Two other distinct members give the difference vector.
         local r1, r2
         repeat r1 = torch.random(gen, 1, popsize) until r1 ~= i
         repeat r2 = torch.random(gen, 1, popsize) until r2 ~= r1 and r2 ~= i
         -- Binomial crossover between the mutant and member i; coordinate jrand always mutates.
         -- (Torch's de compared jrand with i rather than j; this is the textbook rule.)
         local jrand = torch.random(gen, 1, D)
         local child, parent, a, b = children[i], pop[i], pop[r1], pop[r2]
         for j = 1, D do
            if torch.uniform(gen, 0, 1) < crossoverRate or j == jrand then
               child[j] = bestSolution[j] + scaleFactor * (a[j] - b[j])
            else
               child[j] = parent[j]
            end
         end
         childFitness[i] = evaluate(child) or math.huge
      end
      -- Each child replaces its parent when it is no worse.
      for i = 1, popsize do
         if childFitness[i] <= fitness[i] then
            pop[i]:copy(children[i])
            fitness[i] = childFitness[i]
            if fitness[i] < bestFitness then
               bestFitness = fitness[i]
               bestSolution:copy(children[i])
            end
         end
      end
   end
   return bestSolution:viewAs(x), fx
end
