-- The state fields after known steps, against values worked out by hand from the update rules
-- (Torch's optim keeps these names, and scripts read and save them).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local TOL = 1e-12
local x0 = { 1, -2 }
local g = { 0.5, 1 }

-- opfunc with the constant gradient g (f = g . x), and one with gradient x (f = |x|^2 / 2).
local function linear(x) return 0.5 * x[1] + x[2], torch.Tensor(g) end
local function half_square(x) return 0.5 * x:dot(x), x:clone() end

-- sgd: the learning rate is annealed by the steps taken before: lr / (1 + k lrd).
do
   local x, config = torch.Tensor(x0), { learningRate = 0.1, learningRateDecay = 0.5 }
   local fs = {}
   for k = 1, 3 do
      local xr, f = optim.sgd(linear, x, config)
      assert(xr == x, 'sgd returns x itself')
      fs[k] = f[1]
   end
   local sum = 0.1 + 0.1 / 1.5 + 0.1 / 2
   H.near_all(x, { 1 - 0.5 * sum, -2 - 1 * sum }, TOL, 'sgd x')
   H.eq(config.evalCounter, 3, 'sgd evalCounter (kept in config without a state)')
   H.near(fs[1], 0.5 * 1 - 2, TOL, 'sgd f before the first step')
end

-- sgd with momentum 0.9, dampening 0.5 and weight decay 0.1: the first step starts the momentum
-- at the (decayed) gradient, undamped.
do
   local x, state = torch.Tensor(x0), {}
   local config = { learningRate = 0.1, momentum = 0.9, dampening = 0.5, weightDecay = 0.1 }
   local v, xs = {}, { x0[1], x0[2] }
   for i = 1, 2 do v[i] = g[i] + 0.1 * xs[i]; xs[i] = xs[i] - 0.1 * v[i] end
   for i = 1, 2 do
      local d = g[i] + 0.1 * xs[i]
      v[i] = 0.9 * v[i] + 0.5 * d
      xs[i] = xs[i] - 0.1 * v[i]
   end
   optim.sgd(linear, x, config, state)
   optim.sgd(linear, x, config, state)
   H.near_all(x, xs, TOL, 'momentum x')
   H.near_all(state.dfdx, v, TOL, 'momentum state.dfdx')
   H.eq(state.evalCounter, 2, 'momentum state.evalCounter')
   H.eq(config.evalCounter, nil, 'config untouched when a state is given')
end

-- Nesterov momentum (0.9, no dampening): the step is g + 0.9 v with v the updated momentum;
-- v = g, then 1.9 g, and the steps 1.9 g and 2.71 g.
do
   local x, state = torch.Tensor(x0), {}
   local config = { learningRate = 0.1, momentum = 0.9, dampening = 0, nesterov = true }
   optim.sgd(linear, x, config, state)
   optim.sgd(linear, x, config, state)
   H.near_all(x, { 1 - 0.1 * 4.61 * 0.5, -2 - 0.1 * 4.61 }, TOL, 'nesterov x')
   H.near_all(state.dfdx, { 1.9 * 0.5, 1.9 }, TOL, 'nesterov state.dfdx')
   H.errors(function() optim.sgd(linear, x, { momentum = 0.9, nesterov = true }) end,
      'Nesterov momentum requires a momentum and zero dampening')
end

-- Per-parameter learning rates and weight decays.
do
   local x, state = torch.Tensor(x0), {}
   local config = { learningRate = 0.1, learningRates = torch.Tensor { 1, 0.5 },
                    weightDecays = torch.Tensor { 0.1, 0 } }
   optim.sgd(linear, x, config, state)
   local d = { 0.5 + 0.1 * 1, 1 + 0 }
   H.near_all(state.decayParameters, { 0.1 * 1, 0 }, TOL, 'state.decayParameters')
   H.near_all(state.deltaParameters, { d[1] * 1, d[2] * 0.5 }, TOL, 'state.deltaParameters')
   H.near_all(x, { 1 - 0.1 * d[1], -2 - 0.1 * 0.5 * d[2] }, TOL, 'learningRates x')
end

-- nag: the gradient is taken after moving along the momentum; with a constant gradient the
-- momentum is -lr g, then -1.9 lr g, and x moves by lr g, 0.9 lr g and lr g.
do
   local x, state = torch.Tensor(x0), {}
   local config = { learningRate = 0.1, momentum = 0.9 }
   optim.nag(linear, x, config, state)
   H.near_all(state.dfdx, { -0.05, -0.1 }, TOL, 'nag state.dfdx after one step')
   optim.nag(linear, x, config, state)
   H.near_all(x, { 1 - 0.29 * 0.5, -2 - 0.29 }, TOL, 'nag x')
   H.near_all(state.dfdx, { -0.19 * 0.5, -0.19 }, TOL, 'nag state.dfdx')
   H.eq(state.evalCounter, 2, 'nag evalCounter')
end

-- adam on |x|^2 / 2 (gradient x), two steps, from the update rule written out.
do
   local x, state = torch.Tensor(x0), {}
   local lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
   local xs, m, v, denom = { x0[1], x0[2] }, { 0, 0 }, { 0, 0 }, {}
   for t = 1, 2 do
      local step = lr * math.sqrt(1 - b2 ^ t) / (1 - b1 ^ t)
      local gr = { xs[1], xs[2] }
      for i = 1, 2 do
         m[i] = b1 * m[i] + (1 - b1) * gr[i]
         v[i] = b2 * v[i] + (1 - b2) * gr[i] ^ 2
         denom[i] = math.sqrt(v[i]) + eps
         xs[i] = xs[i] - step * m[i] / denom[i]
      end
      optim.adam(half_square, x, { learningRate = lr }, state)
   end
   H.eq(state.t, 2, 'adam state.t')
   H.near_all(state.m, m, TOL, 'adam state.m')
   H.near_all(state.v, v, TOL, 'adam state.v')
   H.near_all(state.denom, denom, TOL, 'adam state.denom')
   H.near_all(x, xs, TOL, 'adam x')
end

-- adamax: u = max(0.999 u, |g| + eps), x -= lr / (1 - 0.9^t) m / u.
do
   local x, state = torch.Tensor(x0), {}
   optim.adamax(half_square, x, { learningRate = 0.01 }, state)
   H.eq(state.t, 1, 'adamax state.t')
   H.near_all(state.m, { 0.1, -0.2 }, TOL, 'adamax state.m')
   H.near_all(state.u, { 1, 2 }, TOL, 'adamax state.u')
   H.near_all(x, { 1 - 0.01, -2 + 0.01 }, TOL, 'adamax x')
end

-- adagrad: x -= lr g / (sqrt(sum g^2) + 1e-10).
do
   local x, state = torch.Tensor(x0), {}
   optim.adagrad(linear, x, { learningRate = 0.1 }, state)
   optim.adagrad(linear, x, { learningRate = 0.1 }, state)
   H.near_all(state.paramVariance, { 0.5, 2 }, TOL, 'adagrad state.paramVariance')
   H.near_all(state.paramStd, { math.sqrt(0.5) + 1e-10, math.sqrt(2) + 1e-10 }, TOL,
      'adagrad state.paramStd')
   local s1 = 0.1 * 0.5 / (0.5 + 1e-10) + 0.1 * 0.5 / (math.sqrt(0.5) + 1e-10)
   local s2 = 0.1 * 1 / (1 + 1e-10) + 0.1 * 1 / (math.sqrt(2) + 1e-10)
   H.near_all(x, { 1 - s1, -2 - s2 }, TOL, 'adagrad x')
   H.eq(state.evalCounter, 2, 'adagrad evalCounter')
end

-- rmsprop: m = 0.99 m + 0.01 g^2, x -= lr g / (sqrt(m) + eps).
do
   local x, state = torch.Tensor(x0), {}
   optim.rmsprop(linear, x, { learningRate = 0.01 }, state)
   H.near_all(state.m, { 0.01 * 0.25, 0.01 }, TOL, 'rmsprop state.m')
   H.near_all(x, { 1 - 0.01 * 0.5 / (0.05 + 1e-8), -2 - 0.01 / (0.1 + 1e-8) }, TOL, 'rmsprop x')
end

-- adadelta, one step: delta = sqrt(0 + eps) / sqrt(0.1 g^2 + eps) g.
do
   local x, state = torch.Tensor(x0), {}
   optim.adadelta(linear, x, { rho = 0.9, eps = 1e-6 }, state)
   local d = {}
   for i = 1, 2 do d[i] = math.sqrt(1e-6) / math.sqrt(0.1 * g[i] ^ 2 + 1e-6) * g[i] end
   H.near_all(state.delta, d, TOL, 'adadelta state.delta')
   H.near_all(state.accDelta, { 0.1 * d[1] ^ 2, 0.1 * d[2] ^ 2 }, TOL, 'adadelta state.accDelta')
   H.near_all(x, { 1 - d[1], -2 - d[2] }, TOL, 'adadelta x')
end

-- asgd: x = (1 - lambda eta) x - eta g; the average starts at x; eta_t and mu_t follow t.
do
   local x, state = torch.Tensor(x0), {}
   local config = { eta0 = 0.1, lambda = 0.01, alpha = 0.75, t0 = 1 }
   local _, _, ax = optim.asgd(linear, x, config, state)
   local x1 = { (1 - 0.001) * 1 - 0.1 * 0.5, (1 - 0.001) * -2 - 0.1 }
   H.near_all(x, x1, TOL, 'asgd x')
   H.near_all(ax, x1, TOL, 'asgd average')
   H.eq(state.t, 1, 'asgd state.t')
   H.near(state.eta_t, 0.1 / (1 + 0.001) ^ 0.75, TOL, 'asgd state.eta_t')
   H.eq(state.mu_t, 1, 'asgd state.mu_t')
   optim.asgd(linear, x, config, state)
   H.near(state.mu_t, 1, TOL, 'asgd state.mu_t at t = 2 (1 / max(1, t - t0))')
end

-- rprop: steps grow by etaplus while the sign holds.
do
   local x, state = torch.Tensor(x0), {}
   local _, fs = optim.rprop(linear, x, { stepsize = 0.1, niter = 3 }, state)
   H.eq(#fs, 3, 'rprop returns one f per evaluation')
   -- The first step keeps its size (no previous sign), then 1.2 and 1.44 times it.
   H.near_all(state.stepsize, { 0.144, 0.144 }, TOL, 'rprop state.stepsize')
   H.near_all(x, { 1 - 0.1 - 0.12 - 0.144, -2 - 0.1 - 0.12 - 0.144 }, TOL, 'rprop x')
end

-- lbfgs counts its evaluations and iterations across calls.
do
   local x, state = torch.Tensor(2):zero(), {}
   local config = { maxIter = 1, learningRate = 0.1 }
   for _ = 1, 3 do optim.lbfgs(H.rosenbrock, x, config, state) end
   H.eq(state.nIter, 3, 'lbfgs state.nIter')
   H.eq(state.funcEval, 3, 'lbfgs state.funcEval (the last iteration does not re-evaluate)')
   assert(torch.isTensor(state.d) and torch.isTensor(state.g_old), 'lbfgs keeps d and g_old')
   assert(#state.old_dirs == 2 and #state.old_stps == 2, 'lbfgs keeps its history')
end

-- A state saved and loaded goes on exactly as one that never left.
do
   local config = { learningRate = 1e-3, momentum = 0.9 }
   local xa, sa = torch.Tensor(2):zero(), {}
   for _ = 1, 5 do optim.adam(H.rosenbrock, xa, config, sa) end
   local f = torch.MemoryFile()
   f:writeObject({ x = xa, state = sa })
   f:seek(1)
   local saved = f:readObject()
   for _ = 1, 5 do optim.adam(H.rosenbrock, xa, config, sa) end
   for _ = 1, 5 do optim.adam(H.rosenbrock, saved.x, config, saved.state) end
   H.near_all(saved.x, xa:totable(), 0, 'adam after save and load')
   H.eq(saved.state.t, 10, 'adam state.t after save and load')
end

print('ok')
