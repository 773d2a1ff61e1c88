-- Transfer functions: forward values on small hand-checked inputs, gradients against finite
-- differences (nn.Jacobian) for one sample and a batch, in-place forms, saving and reloading,
-- and the errors on bad arguments.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local x = torch.Tensor { -2, -0.5, 0, 0.5, 2 }

-- `module` on x gives `want`; its gradients check out on a 1-D input and a 2-D batch (values in
-- [lo, hi]).
local function pointwise(name, module, want, lo, hi)
   H.case(name, function()
      H.close(module:forward(x:clone()), torch.Tensor(want), 1e-6, name .. ' forward')
      H.gradients(module, torch.Tensor(7), name .. ' 1-D', nil, lo, hi)
      H.gradients(module, torch.Tensor(3, 4), name .. ' batch', nil, lo, hi)
   end)
end

local e = math.exp
pointwise('Exp', nn.Exp(), { e(-2), e(-0.5), 1, e(0.5), e(2) })
pointwise('Abs', nn.Abs(), { 2, 0.5, 0, 0.5, 2 })
pointwise('HardTanh', nn.HardTanh(), { -1, -0.5, 0, 0.5, 1 })
pointwise('HardTanh(-0.25, 1.5)', nn.HardTanh(-0.25, 1.5), { -0.25, -0.25, 0, 0.5, 1.5 })
pointwise('Clamp', nn.Clamp(-1, 0.25), { -1, -0.5, 0, 0.25, 0.25 })
pointwise('ReLU6', nn.ReLU6(), { 0, 0, 0, 0.5, 2 }, -3, 9)
pointwise('ELU', nn.ELU(0.5), { 0.5 * (e(-2) - 1), 0.5 * (e(-0.5) - 1), 0, 0.5, 2 })
pointwise('LeakyReLU', nn.LeakyReLU(0.1), { -0.2, -0.05, 0, 0.5, 2 })
pointwise('HardShrink', nn.HardShrink(0.5), { -2, 0, 0, 0, 2 })
pointwise('SoftShrink', nn.SoftShrink(0.5), { -1.5, 0, 0, 0, 1.5 })
pointwise('Square', nn.Square(), { 4, 0.25, 0, 0.25, 4 })
pointwise('SoftSign', nn.SoftSign(), { -2 / 3, -1 / 3, 0, 1 / 3, 2 / 3 })
pointwise('LogSigmoid', nn.LogSigmoid(), { -math.log(1 + e(2)), -math.log(1 + e(0.5)), -math.log(2),
   -math.log(1 + e(-0.5)), -math.log(1 + e(-2)) })
pointwise('SoftPlus', nn.SoftPlus(), { math.log(1 + e(-2)), math.log(1 + e(-0.5)), math.log(2),
   math.log(1 + e(0.5)), math.log(1 + e(2)) })
pointwise('SoftPlus(beta 2)', nn.SoftPlus(2), { math.log(1 + e(-4)) / 2, math.log(1 + e(-1)) / 2, math.log(2) / 2,
   math.log(1 + e(1)) / 2, math.log(1 + e(4)) / 2 })

H.case('Log, Sqrt and Power on positive inputs', function()
   local p = torch.Tensor { 0.25, 1, 4 }
   H.close(nn.Log():forward(p), torch.Tensor { math.log(0.25), 0, math.log(4) }, 1e-12, 'Log')
   H.close(nn.Sqrt():forward(p), torch.Tensor { 0.5, 1, 2 }, 1e-12, 'Sqrt')
   H.close(nn.Power(3):forward(p), torch.Tensor { 1 / 64, 1, 64 }, 1e-12, 'Power')
   H.gradients(nn.Log(), torch.Tensor(3, 4), 'Log', nil, 0.1, 3)
   H.gradients(nn.Sqrt(), torch.Tensor(3, 4), 'Sqrt', nil, 0.1, 3)
   H.gradients(nn.Power(2.5), torch.Tensor(3, 4), 'Power', nil, 0.1, 3)
   -- Sqrt's gradient is 0 (not NaN) where the output is 0
   local s = nn.Sqrt()
   s:forward(torch.zeros(3))
   H.close(s:backward(torch.zeros(3), torch.ones(3)), torch.zeros(3), 0, 'Sqrt at 0')
   H.check(not pcall(nn.Power), 'Power without a power accepted')
end)

H.case('HardTanh bounds: the gradient stops at the bounds, in place too', function()
   local m = nn.HardTanh(1, math.huge, true)
   local input = torch.Tensor { 0, 1, 2 }
   m:forward(input)
   H.close(input, torch.Tensor { 1, 1, 2 }, 0, 'in-place output in the input')
   H.close(m:backward(input, torch.ones(3)), torch.Tensor { 0, 0, 1 }, 0, 'gradient')
   H.check(not pcall(nn.HardTanh, 1, 0), 'max below min accepted')
   H.check(not pcall(nn.HardTanh, -1, 1, 1), 'a non-boolean in-place flag accepted')
end)

-- In-place and out-of-place forms give the same results.
local function sameInPlace(name, make)
   H.case(name .. ' in place', function()
      local input, g = torch.randn(4, 5), torch.randn(4, 5)
      local a, b = make(false), make(true)
      local out = a:forward(input):clone()
      local gi = a:backward(input, g):clone()
      local ip = input:clone()
      H.close(b:forward(ip), out, 1e-12, name .. ' output')
      H.close(b:backward(ip, g:clone()), gi, 1e-12, name .. ' gradInput')
   end)
end
sameInPlace('ELU', function(ip) return nn.ELU(0.7, ip) end)
sameInPlace('LeakyReLU', function(ip) return nn.LeakyReLU(0.2, ip) end)
sameInPlace('ReLU6', function(ip) return nn.ReLU6(ip) end)
sameInPlace('HardTanh', function(ip) return nn.HardTanh(-0.5, 0.5, ip) end)

H.case('SoftMin', function()
   local m = nn.SoftMin()
   local out = m:forward(torch.Tensor { 0, math.log(2) })
   H.close(out, torch.Tensor { 2 / 3, 1 / 3 }, 1e-12, 'SoftMin forward')
   H.gradients(nn.SoftMin(), torch.Tensor(5), 'SoftMin 1-D')
   H.gradients(nn.SoftMin(), torch.Tensor(3, 5), 'SoftMin batch')
end)

H.case('PReLU: one shared slope, or one per plane', function()
   local m = nn.PReLU()
   H.close(m:forward(torch.Tensor { -4, 2 }), torch.Tensor { -1, 2 }, 1e-12, 'shared slope 0.25')
   local p = nn.PReLU(3)
   p.weight:copy(torch.Tensor { 0.1, 0.2, 0.3 })
   -- a batch of 2 x 3 planes x 2: plane j scaled by its slope where negative
   local input = torch.Tensor(2, 3, 2):fill(-1)
   local want = torch.Tensor { 0.1, 0.2, 0.3 }:view(1, 3, 1):expand(2, 3, 2):clone():mul(-1)
   H.close(p:forward(input), want, 1e-12, 'per-plane slopes')
   H.gradients(nn.PReLU(3), torch.Tensor(3), 'PReLU 1-D', { { 'weight', 'gradWeight' } })
   H.gradients(nn.PReLU(3), torch.Tensor(4, 3), 'PReLU batch', { { 'weight', 'gradWeight' } })
   H.gradients(nn.PReLU(3), torch.Tensor(2, 3, 2, 2), 'PReLU maps', { { 'weight', 'gradWeight' } })
   H.gradients(nn.PReLU(), torch.Tensor(2, 5), 'PReLU shared', { { 'weight', 'gradWeight' } })
   local ok, err = pcall(function() nn.PReLU(3):forward(torch.randn(2, 4)) end)
   H.check(not ok and tostring(err):find('planes'), 'a wrong number of planes gave %s', tostring(err))
end)

H.case('RReLU: random slopes in training, their mean in evaluation', function()
   local m = nn.RReLU(0.1, 0.3)
   local input = torch.Tensor(1000):fill(-1)
   local out = m:forward(input)
   H.check(out:max() <= -0.1 + 1e-12 and out:min() >= -0.3 - 1e-12, 'slopes out of [0.1, 0.3]')
   H.close(m:backward(input, torch.ones(1000)), m.noise, 0, 'the gradient is the noise')
   m:evaluate()
   H.close(m:forward(torch.Tensor { -1, 2 }), torch.Tensor { -0.2, 2 }, 1e-12, 'evaluation slope')
   H.gradients(m, torch.Tensor(3, 4), 'RReLU evaluation')
   H.check(not pcall(nn.RReLU, 0.5, 0.1), 'lower above upper accepted')
end)

H.case('GatedLinearUnit', function()
   local m = nn.GatedLinearUnit()
   local out = m:forward(torch.Tensor { { 2, 0 }, { 3, math.log(3) } })
   H.close(out, torch.Tensor { { 1 }, { 2.25 } }, 1e-12, 'a * sigmoid(b)')
   H.gradients(nn.GatedLinearUnit(), torch.Tensor(3, 6), 'GLU last dim')
   H.gradients(nn.GatedLinearUnit(1), torch.Tensor(4, 3), 'GLU dim 1')
   H.check(not pcall(function() nn.GatedLinearUnit():forward(torch.randn(2, 3)) end), 'an odd size accepted')
end)

H.case('CReLU doubles the features: relu(x) then relu(-x)', function()
   local m = nn.CReLU(1)
   H.close(m:forward(torch.Tensor { -1, 2 }), torch.Tensor { 0, 2, 1, 0 }, 0, 'one sample')
   local batch = m:forward(torch.Tensor { { -1, 2 }, { 3, -4 } })
   H.close(batch, torch.Tensor { { 0, 2, 1, 0 }, { 3, 0, 0, 4 } }, 0, 'batch')
   H.gradients(nn.CReLU(3), torch.Tensor(2, 3, 4, 4), 'CReLU maps batch')
   H.gradients(nn.CReLU(3), torch.Tensor(3, 4, 4), 'CReLU maps')
end)

H.case('hessian: diagonal Hessians of Linear agree with their first derivatives', function()
   nn.hessian.enable()
   local m = nn.Linear(4, 3)
   for _, input in ipairs { torch.Tensor(4), torch.Tensor(5, 4) } do
      H.check(nn.Jacobian.testDiagHessianInput(m, input) < 1e-6, 'diagHessianInput')
      H.check(nn.Jacobian.testDiagHessianWeight(m, input) < 1e-6, 'diagHessianWeight')
      H.check(nn.Jacobian.testDiagHessianBias(m, input) < 1e-6, 'diagHessianBias')
   end
   -- pointwise: f'(x)^2 times the diagonal that comes in
   local t = nn.Tanh()
   local input = torch.Tensor { 0.3, -1 }
   t:forward(input)
   local d = t:updateDiagHessianInput(input, torch.Tensor { 2, 3 })
   local f1 = torch.tanh(input):pow(2):mul(-1):add(1)
   H.close(d, f1:pow(2):cmul(torch.Tensor { 2, 3 }), 1e-12, 'Tanh diagonal')
   -- getParameters gives the flattened Hessian tensors too
   local seq = nn.Sequential():add(nn.Linear(4, 3)):add(nn.Tanh()):add(nn.Linear(3, 2))
   seq:initDiagHessianParameters()
   local _, _, h = seq:getParameters()
   H.check(h and h:nElement() == 15 + 8, 'flat Hessian of %s elements', h and h:nElement() or 'no')
   seq:forward(torch.randn(4))
   local dh = seq:updateDiagHessianInput(torch.randn(4), torch.ones(2))
   H.check(dh:nElement() == 4 and dh:min() >= 0, 'Sequential diagHessianInput')
end)

H.finish()
