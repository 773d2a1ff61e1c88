-- Bad input gets an error that names the function.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local x = torch.zeros(2)
for _, name in ipairs { 'sgd', 'nag', 'adam', 'adamax', 'adagrad', 'adadelta', 'rmsprop', 'rprop',
   'asgd', 'lbfgs', 'cg', 'cmaes', 'de' } do
   local fname = 'optim.' .. name
   H.errors(function() optim[name](nil, x, {}) end, fname .. ': bad argument #1', name)
   H.errors(function() optim[name](H.rosenbrock, { 1, 2 }, {}) end,
      fname .. ': bad argument #2 (a tensor x expected, got table)', name)
   H.errors(function() optim[name](H.rosenbrock, x, 'fast') end, fname .. ': bad argument #3', name)
end
for _, name in ipairs { 'sgd', 'adam', 'lbfgs', 'cg', 'rprop' } do
   local fname = 'optim.' .. name
   -- opfunc answering no gradient, or one of the wrong size.
   H.errors(function() optim[name](function() return 1 end, torch.zeros(2), {}) end,
      fname .. ': opfunc must return f(x) and df/dx (a tensor), got nil for df/dx', name)
   H.errors(function() optim[name](function() return 1, torch.zeros(3) end, torch.zeros(2), {}) end,
      fname .. ': df/dx has 3 elements but x has 2', name)
end
H.errors(function() optim.sgd(H.rosenbrock, torch.zeros(2), { learningRate = 'big' }) end,
   'optim.sgd: config.learningRate must be a number, got string')
-- A number in a string is a number (as Lua's arithmetic took it in Torch).
optim.sgd(H.rosenbrock, torch.zeros(2), { learningRate = '0.001' })
H.errors(function() optim.lbfgs(H.rosenbrock, torch.zeros(2), { lineSearch = 'wolfe' }) end,
   'optim.lbfgs: config.lineSearch must be a function')
H.errors(function() optim.lbfgs(function() return 'f', torch.zeros(2) end, torch.zeros(2)) end,
   'optim.lbfgs: opfunc must return f(x) as a number, got string')
H.errors(function() optim.nag(H.rosenbrock, torch.zeros(2), { momentum = 0 }) end,
   'Momentum must be positive for Nesterov Accelerated Gradient')
H.errors(function() optim.cmaes(H.rosenbrock, torch.zeros(2), {}) end,
   'optim.cmaes: config.sigma (the initial step size) is required')
H.errors(function() optim.de(H.rosenbrock, torch.zeros(2), {}) end,
   'optim.de: config.maxFEs (the number of function evaluations) is required')
H.errors(function() optim.checkgrad(H.rosenbrock, torch.zeros(2), 'small') end,
   'optim.checkgrad: bad argument #3')
H.errors(function() optim.FistaLS(nil) end, 'optim.FistaLS: bad argument #1')
-- The error is blamed on the caller's line.
local ok, err = pcall(function() optim.adam(nil, x) end)
assert(not ok and err:find('errors.lua:%d+: optim.adam'), err)

-- A one-element tensor is accepted as f(x) (criterions return their output).
local _, fs = optim.lbfgs(function(v) local f, g = H.rosenbrock(v) return torch.Tensor { f }, g end,
   torch.zeros(2), { maxIter = 3 })
assert(type(fs[1]) == 'number', 'f as a number')

print('ok')
