-- optim: Torch's optimisation package. Each algorithm is a function
--
--    x, fs[, ...] = optim.NAME(opfunc, x[, config[, state]])
--
-- where opfunc(x) returns f(x) and df/dx, x is updated in place, and config's hyper-parameters
-- and state's buffers and counters (config itself when state is not given) keep Torch's field
-- names, so saved states and scripts that read them carry over. Also optim.Logger (a log file of
-- training curves, plotted through gnuplot) and optim.ConfusionMatrix.
--
-- `optim` is also a global, as in Torch.
require 'torch'

local optim = rawget(_G, 'optim')
if type(optim) ~= 'table' then optim = {} end
rawset(_G, 'optim', optim)

for _, name in ipairs {
   'sgd', 'nag', 'adam', 'adamax', 'adagrad', 'adadelta', 'rmsprop', 'rprop', 'asgd',
   'lbfgs', 'cg', 'cmaes', 'de', 'lswolfe', 'polyinterp', 'checkgrad',
} do
   optim[name] = require('optim.' .. name)
end
optim.FistaLS = require 'optim.fista'

-- The classes install themselves in the global optim (torch.class('optim.Logger')).
require 'optim.Logger'
require 'optim.ConfusionMatrix'

return optim
