-- Simple and parametrised layers: forward values on small hand-checked inputs, gradients against
-- finite differences (nn.Jacobian, or the helper below for table inputs) for one sample and a
-- batch, saving and reloading, and the errors on bad input.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

-- The gradient of sum(output * g) with respect to each tensor of the table `input`, by central
-- differences, against the module's backward pass.
local function tableGradients(module, input, what, skip)
   local out = module:forward(input)
   local g = out.new():resizeAs(out):copy(torch.randn(out:nElement()))
   local gi = module:backward(input, g)
   for i, t in ipairs(input) do
      if not (skip and skip[i]) then
         local flat = t:view(-1)
         local numeric = torch.Tensor(flat:nElement())
         for k = 1, flat:nElement() do
            local orig = flat[k]
            flat[k] = orig + 1e-6
            local a = module:forward(input):clone():cmul(g):sum()
            flat[k] = orig - 1e-6
            local b = module:forward(input):clone():cmul(g):sum()
            flat[k] = orig
            numeric[k] = (a - b) / 2e-6
         end
         H.close(gi[i], numeric, 1e-5, what .. ' gradient of input ' .. i)
      end
   end
end

H.case('Add: a bias per element or one scalar, for one sample and a batch', function()
   local m = nn.Add(3)
   m.bias:copy(torch.Tensor { 1, 2, 3 })
   H.close(m:forward(torch.Tensor { 1, 1, 1 }), torch.Tensor { 2, 3, 4 }, 0, 'Add forward')
   H.close(m:forward(torch.ones(2, 3)), torch.Tensor { { 2, 3, 4 }, { 2, 3, 4 } }, 0, 'Add batch')
   local bias = { { 'bias', 'gradBias' } }
   H.gradients(nn.Add(3, 4), torch.Tensor(3, 4), 'Add', bias)
   H.gradients(nn.Add(12), torch.Tensor(5, 3, 4), 'Add batch', bias)
   H.gradients(nn.Add(5, true), torch.Tensor(2, 5), 'Add scalar', bias)
end)

H.case('CAdd and CMul broadcast their parameter', function()
   local a = nn.CAdd(1, 3)
   a.bias:copy(torch.Tensor { { 1, 2, 3 } })
   H.close(a:forward(torch.zeros(2, 3)), torch.Tensor { { 1, 2, 3 }, { 1, 2, 3 } }, 0, 'CAdd rows')
   local c = nn.CMul(2, 1)
   c.weight:copy(torch.Tensor { { 2 }, { 3 } })
   H.close(c:forward(torch.ones(2, 3)), torch.Tensor { { 2, 2, 2 }, { 3, 3, 3 } }, 0, 'CMul columns')
   for _, case in ipairs {
      { { 3, 1, 4 }, { 3, 5, 4 } }, { { 5 }, { 4, 5 } }, { { 2, 3 }, { 4, 2, 3 } }, { { 1, 3, 1 }, { 2, 3, 4 } } } do
      local size, input = case[1], torch.Tensor(torch.LongStorage(case[2]))
      H.gradients(nn.CAdd(unpack(size)), input, 'CAdd', { { 'bias', 'gradBias' } })
      H.gradients(nn.CMul(unpack(size)), input, 'CMul', { { 'weight', 'gradWeight' } })
   end
   H.gradients(nn.Mul(), torch.Tensor(3, 4), 'Mul', { { 'weight', 'gradWeight' } })
end)

H.case('Sum, Mean, Min: dimensions, negative dimensions, batches, squeeze', function()
   local t = torch.Tensor { { 1, 2, 3 }, { 4, 5, 6 } }
   H.close(nn.Sum(1):forward(t), torch.Tensor { 5, 7, 9 }, 0, 'Sum(1)')
   H.close(nn.Sum(-1):forward(t), torch.Tensor { 6, 15 }, 0, 'Sum(-1)')
   H.close(nn.Sum(1, 1):forward(t), torch.Tensor { 6, 15 }, 0, 'Sum batch')
   H.check(nn.Sum(1, nil, nil, false):forward(t):dim() == 2, 'Sum without squeeze')
   H.close(nn.Mean(2):forward(t), torch.Tensor { 2, 5 }, 0, 'Mean')
   H.close(nn.Min(2):forward(t), torch.Tensor { 1, 4 }, 0, 'Min')
   H.gradients(nn.Sum(2), torch.Tensor(3, 4, 2), 'Sum')
   H.gradients(nn.Mean(3), torch.Tensor(3, 4, 2), 'Mean')
   H.gradients(nn.Min(1), torch.Tensor(3, 4), 'Min')
   H.check(not pcall(function() nn.Sum(3):forward(t) end), 'a dimension beyond the input accepted')
end)

H.case('Normalize: Lp norms, p = inf, one vector and a batch', function()
   local m = nn.Normalize(2)
   H.close(m:forward(torch.Tensor { 3, 4 }), torch.Tensor { 0.6, 0.8 }, 1e-9, 'L2')
   H.close(nn.Normalize(1):forward(torch.Tensor { 1, -3 }), torch.Tensor { 0.25, -0.75 }, 1e-9, 'L1')
   H.close(nn.Normalize(math.huge):forward(torch.Tensor { 1, -4 }), torch.Tensor { 0.25, -1 }, 1e-9, 'Linf')
   for _, p in ipairs { 1, 1.5, 2, 3, math.huge } do
      H.gradients(nn.Normalize(p), torch.Tensor(5), 'Normalize ' .. p)
      H.gradients(nn.Normalize(p), torch.Tensor(3, 5), 'Normalize batch ' .. p)
   end
   H.check(not pcall(function() nn.Normalize(2):forward(torch.randn(2, 3, 4)) end), 'a 3-D input accepted')
end)

H.case('views: Contiguous, Squeeze, Unsqueeze, Collapse, Replicate, Narrow, Padding', function()
   local t = torch.randn(3, 4):t()
   local c = nn.Contiguous():forward(t)
   H.check(c:isContiguous(), 'Contiguous output')
   H.close(c, t, 0, 'Contiguous values')
   H.check(nn.Squeeze():forward(torch.Tensor(2, 1, 3)):dim() == 2, 'Squeeze')
   H.check(nn.Squeeze(1, 2):forward(torch.Tensor(1, 1, 3)):dim() == 2, 'Squeeze keeps a batch of one')
   H.check(nn.Unsqueeze(2):forward(torch.Tensor(2, 3)):size(2) == 1, 'Unsqueeze')
   H.check(nn.Unsqueeze(1, 2):forward(torch.Tensor(5, 2, 3)):size(2) == 1, 'Unsqueeze batch')
   H.check(nn.Collapse(2):forward(torch.Tensor(4, 2, 3)):dim() == 2, 'Collapse batch')
   H.close(nn.Replicate(2, 2):forward(torch.Tensor { 1, 2 }), torch.Tensor { { 1, 1 }, { 2, 2 } }, 0, 'Replicate')
   H.close(nn.Narrow(1, 2, -1):forward(torch.Tensor { 1, 2, 3, 4 }), torch.Tensor { 2, 3, 4 }, 0, 'Narrow to the end')
   H.close(nn.Padding(1, 2, 1, 9):forward(torch.Tensor { 1, 2 }), torch.Tensor { 1, 2, 9, 9 }, 0, 'Padding after')
   H.close(nn.Padding(1, -1, 1, 9, 2):forward(torch.Tensor { 1, 2 }), torch.Tensor { 1, 9, 2 }, 0, 'Padding inside')
   H.gradients(nn.Squeeze(), torch.Tensor(2, 1, 3), 'Squeeze')
   H.gradients(nn.Unsqueeze(2), torch.Tensor(2, 3), 'Unsqueeze')
   H.gradients(nn.Collapse(2), torch.Tensor(4, 2, 3), 'Collapse')
   H.gradients(nn.Replicate(3, 1, 1), torch.Tensor(2, 4), 'Replicate')
   H.gradients(nn.Narrow(2, 2, 2), torch.Tensor(3, 5), 'Narrow')
   H.gradients(nn.Padding(2, -2, 2, 0.5), torch.Tensor(3, 4), 'Padding')
   H.check(not pcall(nn.Narrow, 1), 'Narrow without an offset accepted')
   H.check(not pcall(nn.Unsqueeze), 'Unsqueeze without a position accepted')
end)

H.case('constants, noise and gradient tricks', function()
   local input = torch.Tensor { 1, -2 }
   H.close(nn.AddConstant(3):forward(input), torch.Tensor { 4, 1 }, 0, 'AddConstant')
   H.close(nn.AddConstant(torch.Tensor { 1, 2 }):forward(torch.zeros(3, 2)), torch.Tensor { { 1, 2 }, { 1, 2 }, { 1, 2 } },
      0, 'AddConstant tensor on a batch')
   H.close(nn.MulConstant(-2):forward(input), torch.Tensor { -2, 4 }, 0, 'MulConstant')
   -- in place, the backward pass gives the caller its input back
   for _, m in ipairs { nn.AddConstant(3, true), nn.MulConstant(4, true) } do
      local x = torch.randn(5)
      local copy = x:clone()
      m:forward(x)
      m:backward(x, torch.ones(5))
      H.close(x, copy, 1e-12, torch.type(m) .. ' in place restores its input')
   end
   H.check(not pcall(nn.MulConstant, torch.Tensor(2)), 'MulConstant with a tensor accepted')
   H.gradients(nn.AddConstant(2), torch.Tensor(3, 4), 'AddConstant')
   H.gradients(nn.MulConstant(-1.5), torch.Tensor(3, 4), 'MulConstant')
   local gr = nn.GradientReversal(0.5)
   H.close(gr:forward(input), input, 0, 'GradientReversal forward')
   H.close(gr:backward(input, torch.Tensor { 2, 4 }), torch.Tensor { -1, -2 }, 0, 'GradientReversal backward')
   local z = nn.ZeroGrad()
   H.close(z:forward(input), input, 0, 'ZeroGrad forward')
   H.close(z:backward(input, torch.ones(2)), torch.zeros(2), 0, 'ZeroGrad backward')
   local k = nn.Constant(torch.Tensor { 1, 2 }, 1)
   H.close(k:forward(torch.randn(3, 5)), torch.Tensor { { 1, 2 }, { 1, 2 }, { 1, 2 } }, 0, 'Constant per sample')
   H.close(k:backward(torch.randn(3, 5), torch.ones(3, 2)), torch.zeros(3, 5), 0, 'Constant gradient')
   local w = nn.WhiteNoise(0, 0.1)
   local noisy = w:forward(torch.zeros(10000))
   H.check(math.abs(noisy:std() - 0.1) < 0.01, 'WhiteNoise std %g', noisy:std())
   w:evaluate()
   H.close(w:forward(torch.zeros(5)), torch.zeros(5), 0, 'WhiteNoise in evaluation')
   local l1 = nn.L1Penalty(0.5)
   H.close(l1:forward(input), input, 0, 'L1Penalty passes the input')
   H.close(l1.loss, 1.5, 1e-12, 'L1Penalty loss')
   H.close(l1:backward(input, torch.ones(2)), torch.Tensor { 1.5, 0.5 }, 1e-12, 'L1Penalty gradient')
end)

H.case('OneHot, Index, MaskedSelect, Copy', function()
   local oh = nn.OneHot(3)
   H.close(oh:forward(torch.LongTensor { 3, 1 }), torch.Tensor { { 0, 0, 1 }, { 1, 0, 0 } }, 0, 'OneHot batch')
   H.close(oh:forward(2), torch.Tensor { 0, 1, 0 }, 0, 'OneHot number')
   H.check(oh:forward(torch.LongTensor(2, 4):fill(1)):dim() == 3, 'OneHot 2-D input')
   local idx = nn.Index(1)
   local input = { torch.Tensor { 10, 20, 30 }, torch.LongTensor { 3, 1, 3 } }
   H.close(idx:forward(input), torch.Tensor { 30, 10, 30 }, 0, 'Index forward')
   H.close(idx:backward(input, torch.Tensor { 1, 2, 3 })[1], torch.Tensor { 2, 0, 4 }, 0, 'Index backward')
   local ms = nn.MaskedSelect()
   local t = torch.Tensor { { 1, 2 }, { 3, 4 } }
   local mask = torch.ByteTensor { { 1, 0 }, { 0, 1 } }
   H.close(ms:forward { t, mask }, torch.Tensor { 1, 4 }, 0, 'MaskedSelect forward')
   H.close(ms:backward({ t, mask }, torch.Tensor { 5, 6 })[1], torch.Tensor { { 5, 0 }, { 0, 6 } }, 0,
      'MaskedSelect backward')
   local c = nn.Copy('torch.DoubleTensor', 'torch.FloatTensor')
   H.check(torch.type(c:forward(torch.randn(2))) == 'torch.FloatTensor', 'Copy output type')
   H.check(torch.type(c:backward(torch.randn(2), torch.FloatTensor(2))) == 'torch.DoubleTensor', 'Copy gradInput type')
   local same = nn.Copy()
   local x = torch.randn(3)
   same:forward(x)
   H.check(torch.pointer(same.output:storage()) == torch.pointer(x:storage()), 'Copy of one type copied')
   local dc = nn.Copy(nil, nil, nil, true):float()
   H.check(torch.type(dc.output) == 'torch.DoubleTensor', 'Copy with dontCast was cast')
end)

H.case('MV and MM, with transposes and batches', function()
   for _, trans in ipairs { false, true } do
      local mv = nn.MV(trans)
      local M = trans and torch.randn(4, 3) or torch.randn(3, 4)
      local v = torch.randn(4)
      H.close(mv:forward { M, v }, (trans and M:t() or M) * v, 1e-12, 'MV')
      tableGradients(nn.MV(trans), { M, v }, 'MV')
      tableGradients(nn.MV(trans), { torch.randn(2, 3, 3), torch.randn(2, 3) }, 'batch MV')
   end
   for _, ta in ipairs { false, true } do
      for _, tb in ipairs { false, true } do
         local A = ta and torch.randn(4, 3) or torch.randn(3, 4)
         local B = tb and torch.randn(2, 4) or torch.randn(4, 2)
         local want = (ta and A:t() or A) * (tb and B:t() or B)
         H.close(nn.MM(ta, tb):forward { A, B }, want, 1e-12, 'MM')
         tableGradients(nn.MM(ta, tb), { A, B }, 'MM')
         local bA = ta and torch.randn(2, 4, 3) or torch.randn(2, 3, 4)
         local bB = tb and torch.randn(2, 2, 4) or torch.randn(2, 4, 2)
         tableGradients(nn.MM(ta, tb), { bA, bB }, 'batch MM')
      end
   end
   H.check(not pcall(function() nn.MM():forward { torch.randn(2, 3), torch.randn(2, 3) } end), 'MM size mismatch accepted')
end)

H.case('Euclidean, WeightedEuclidean, Cosine', function()
   local e = nn.Euclidean(2, 2)
   e.weight:copy(torch.Tensor { { 0, 3 }, { 0, 4 } })
   H.close(e:forward(torch.Tensor { 0, 0 }), torch.Tensor { 0, 5 }, 1e-12, 'Euclidean distances')
   local params = { { 'weight', 'gradWeight' } }
   H.gradients(nn.Euclidean(4, 3), torch.Tensor(4), 'Euclidean', params)
   H.gradients(nn.Euclidean(4, 3), torch.Tensor(5, 4), 'Euclidean batch', params)
   local w = nn.WeightedEuclidean(2, 1)
   w.weight:zero()
   w.diagCov:copy(torch.Tensor { { 2 }, { 1 } })
   H.close(w:forward(torch.Tensor { 1, 1 }), torch.Tensor { math.sqrt(5) }, 1e-12, 'WeightedEuclidean')
   local wparams = { { 'weight', 'gradWeight' }, { 'diagCov', 'gradDiagCov' } }
   H.gradients(nn.WeightedEuclidean(4, 3), torch.Tensor(4), 'WeightedEuclidean', wparams)
   H.gradients(nn.WeightedEuclidean(4, 3), torch.Tensor(5, 4), 'WeightedEuclidean batch', wparams)
   local c = nn.Cosine(2, 2)
   c.weight:copy(torch.Tensor { { 1, 0 }, { 1, 1 } })
   H.close(c:forward(torch.Tensor { 2, 0 }), torch.Tensor { 1, 1 / math.sqrt(2) }, 1e-9, 'Cosine')
   H.gradients(nn.Cosine(4, 3), torch.Tensor(4), 'Cosine', params)
   H.gradients(nn.Cosine(4, 3), torch.Tensor(5, 4), 'Cosine batch', params)
   H.check(not pcall(function() nn.Euclidean(2, 2):forward(torch.randn(2, 2, 2)) end), 'a 3-D input accepted')
end)

H.case('Bilinear', function()
   local m = nn.Bilinear(2, 2, 1)
   m.weight:copy(torch.Tensor { { { 1, 2 }, { 3, 4 } } })
   m.bias:fill(0.5)
   local out = m:forward { torch.Tensor { { 1, 0 } }, torch.Tensor { { 0, 1 } } }
   H.close(out, torch.Tensor { { 2.5 } }, 1e-12, 'x1^T W x2 + b')
   tableGradients(nn.Bilinear(3, 2, 4), { torch.randn(5, 3), torch.randn(5, 2) }, 'Bilinear')
   H.check(not pcall(function() nn.Bilinear(3, 2, 4):forward { torch.randn(5, 2), torch.randn(5, 2) } end),
      'wrong sizes accepted')
   -- parameters through a table-producing network
   local split = nn.ConcatTable():add(nn.Narrow(2, 1, 3)):add(nn.Narrow(2, 4, 2))
   local seq = nn.Sequential():add(split):add(nn.Bilinear(3, 2, 2))
   H.gradients(seq, torch.Tensor(4, 5), 'Bilinear in a network')
   local b = seq:get(2)
   H.check(nn.Jacobian.testJacobianParameters(seq, torch.Tensor(4, 5), b.weight, b.gradWeight) < 1e-5, 'weight')
   H.check(nn.Jacobian.testJacobianParameters(seq, torch.Tensor(4, 5), b.bias, b.gradBias) < 1e-5, 'bias')
end)

H.case('PartialLinear: a partition of the outputs, and the full layer back', function()
   local m = nn.PartialLinear(4, 6)
   local lin = nn.Linear(4, 6)
   lin.weight:copy(m.network:get(1):get(2).weight)
   lin.bias:copy(m.bias:view(6))
   local x = torch.randn(3, 4)
   H.close(m:forward(x), lin:forward(x), 1e-12, 'full layer')
   m:setPartition(torch.Tensor { 2, 5 })
   H.close(m:forward(x), lin:forward(x):index(2, torch.LongTensor { 2, 5 }), 1e-12, 'partition')
   local weight = m.network:get(1):get(2)
   H.check(nn.SparseJacobian.testJacobian(m, torch.randn(3, 4)) < 1e-5, 'input gradient')
   H.check(nn.SparseJacobian.testJacobianParameters(m, torch.randn(3, 4), weight.weight, weight.gradWeight) < 1e-5,
      'weight gradient')
   H.check(nn.SparseJacobian.testJacobianParameters(m, torch.randn(3, 4), m.bias, m.gradBias) < 1e-5, 'bias gradient')
   H.check(nn.SparseJacobian.testJacobianUpdateParameters(m, torch.randn(3, 4), m.bias) < 1e-5, 'bias update')
   m:resetPartition()
   H.check(m:forward(x):size(2) == 6, 'resetPartition')
end)

-- A sparse (index, value) sample and its dense equivalent.
local function sparseSample(nIn, nnz)
   local idx = torch.randperm(nIn):narrow(1, 1, nnz)
   local s = torch.Tensor(nnz, 2)
   s:select(2, 1):copy(idx)
   s:select(2, 2):copy(torch.randn(nnz))
   local dense = torch.zeros(nIn)
   dense:indexCopy(1, idx:long(), s:select(2, 2):clone())
   return s, dense
end

H.case('SparseLinear against Linear: one sample, a batch table, the legacy batch', function()
   local m = nn.SparseLinear(10, 3, true)
   local lin = nn.Linear(10, 3)
   lin.weight:copy(m.weight)
   lin.bias:copy(m.bias)
   local s, dense = sparseSample(10, 4)
   H.close(m:forward(s), lin:forward(dense), 1e-12, 'one sample')
   local g = torch.randn(3)
   local gi = m:backward(s, g)
   H.close(gi[1]:select(2, 2), lin:backward(dense, g), 1e-12, 'dense gradInput')
   m:zeroGradParameters()
   lin:zeroGradParameters()
   local batch, denseBatch = {}, torch.Tensor(3, 10)
   for i = 1, 3 do batch[i], denseBatch[i] = sparseSample(10, i + 1) end
   local gb = torch.randn(3, 3)
   H.close(m:forward(batch), lin:forward(denseBatch), 1e-12, 'batch')
   m:backward(batch, gb)
   lin:backward(denseBatch, gb)
   H.close(m.gradWeight, lin.gradWeight, 1e-12, 'gradWeight')
   H.close(m.gradBias, lin.gradBias, 1e-12, 'gradBias')
   m:updateParameters(0.1)
   lin:updateParameters(0.1)
   H.close(m.weight, lin.weight, 1e-12, 'sparse update')
   m:zeroGradParameters()
   H.check(m.gradWeight:abs():max() == 0, 'sparse zeroing left gradients')
   local legacy = torch.Tensor(2, 3, 2)
   legacy[1]:copy(sparseSample(10, 3))
   legacy[2]:copy(sparseSample(10, 3))
   local out = m:forward(legacy):clone()
   H.close(out[2], m:forward(legacy[2]), 1e-12, 'legacy batch')
   H.check(nn.SparseJacobian.testJacobianParameters(m, (sparseSample(10, 4)), m.weight, m.gradWeight) < 1e-5,
      'SparseJacobian weight')
end)

H.case('IndexLinear against Linear: key tables, the flat form, updates', function()
   local nIn, nOut = 12, 3
   local m = nn.IndexLinear(nIn, nOut, true)
   m:reset()
   local lin = nn.Linear(nIn, nOut)
   lin.weight:copy(m.weight:t())
   lin.bias:copy(m.bias)
   local keys, values, dense = {}, {}, torch.zeros(2, nIn)
   for i = 1, 2 do
      keys[i] = torch.randperm(nIn):narrow(1, 1, 4):long()
      values[i] = torch.randn(4)
      dense[i]:indexCopy(1, keys[i], values[i])
   end
   H.close(m:forward { keys, values }, lin:forward(dense), 1e-12, 'key tables')
   local flat = { torch.cat(keys[1], keys[2]), torch.cat(values[1], values[2]), torch.LongTensor { 4, 4 } }
   H.close(m:forward(flat), lin:forward(dense), 1e-12, 'flat form')
   H.close(m:forward { keys[2], values[2] }, lin:forward(dense[2]), 1e-12, 'one sample')
   local g = torch.randn(2, nOut)
   m:zeroGradParameters()
   lin:zeroGradParameters()
   m:forward { keys, values }
   local gi = m:backward({ keys, values }, g)
   H.close(gi[2][1], lin:backward(dense, g)[1], 1e-12, 'dense gradInput')
   m:updateParameters(0.5)
   lin:updateParameters(0.5)
   H.close(m.weight:t(), lin.weight, 1e-12, 'weight update')
   H.close(m.bias, lin.bias, 1e-12, 'bias update')
   -- accumulated twice: both applied
   m:zeroGradParameters()
   lin:zeroGradParameters()
   for _ = 1, 2 do
      m:forward { keys, values }
      m:backward({ keys, values }, g)
      lin:forward(dense)
      lin:backward(dense, g)
   end
   m:updateParameters(0.5)
   lin:updateParameters(0.5)
   H.close(m.weight:t(), lin.weight, 1e-12, 'two accumulations')
   H.check(not pcall(function() m:forward { keys } end), 'a one-element input accepted')
end)

H.case('WeightNorm and LinearWeightNorm', function()
   local wn = nn.WeightNorm(nn.Linear(4, 3))
   local x = torch.randn(5, 4)
   wn:forward(x)
   -- each row of the weight has length g
   H.close(wn.weight:norm(2, 2):view(3), wn.g, 1e-4, 'row lengths')
   local vg = { { 'v', 'gradV' }, { 'g', 'gradG' }, { 'bias', 'gradBias' } }
   for _, p in ipairs(vg) do
      H.check(nn.Jacobian.testJacobianParameters(wn, torch.Tensor(5, 4), wn[p[1]], wn[p[2]]) < 1e-5, 'WeightNorm ' .. p[1])
   end
   local conv = nn.WeightNorm(nn.TemporalConvolution(4, 3, 2))
   H.check(nn.Jacobian.testJacobianParameters(conv, torch.Tensor(6, 4), conv.v, conv.gradV) < 1e-5, 'conv v')
   local back = torch.deserialize(torch.serialize(wn))
   H.close(back:forward(x), wn:forward(x), 1e-12, 'WeightNorm read back')
   local lwn = nn.LinearWeightNorm(4, 3)
   for _, p in ipairs(vg) do
      H.check(nn.Jacobian.testJacobianParameters(lwn, torch.Tensor(5, 4), lwn[p[1]], lwn[p[2]]) < 1e-5,
         'LinearWeightNorm ' .. p[1])
   end
   H.check(nn.Jacobian.testJacobianUpdateParameters(lwn, torch.Tensor(5, 4), lwn.v) < 1e-5, 'LinearWeightNorm update')
   local lin = nn.Linear(4, 3)
   local from = nn.LinearWeightNorm.fromLinear(lin)
   H.close(from:forward(x), lin:forward(x), 1e-9, 'fromLinear')
   H.close(from:toLinear():forward(x), lin:forward(x), 1e-9, 'toLinear')
end)

H.case('Kmeans finds well separated clusters', function()
   local input = torch.Tensor(60, 2)
   for i = 1, 60 do input[i]:fill((i - 1) % 3 * 10) end
   local km = nn.Kmeans(3, 2)
   km:initKmeansPlus(input)
   for _ = 1, 10 do
      km:zeroGradParameters()
      km:forward(input)
      km:backward(input)
      km.weight:add(-1, km.gradWeight)
   end
   km:forward(input)
   H.check(km.loss < 1e-6, 'loss %g', km.loss)
   H.check(not pcall(function() km:forward(torch.randn(4)) end), 'a 1-D input accepted')
end)

H.case('Transpose, Select and Convert keep views of views right', function()
   local x = torch.randn(2, 3, 4)
   local t = nn.Transpose({ 1, 3 }, { 1, 2 })
   H.close(t:forward(x), x:transpose(1, 3):transpose(1, 2), 0, 'Transpose forward')
   H.close(t:backward(x, t.output), x, 0, 'Transpose backward')
   local b = nn.Transpose({ 1, 2 }):setNumInputDims(2)
   H.close(b:forward(torch.randn(5, 3, 4)), b.output, 0, 'Transpose batch')
   H.check(b.output:size(2) == 4, 'batched Transpose swapped the batch')
   local s = nn.Select(2, -1)
   H.close(s:forward(x), x:select(2, 3), 0, 'Select forward')
   H.gradients(nn.Select(3, 2), torch.Tensor(2, 3, 4), 'Select')
   local ok = pcall(function() nn.Select(2, 4):forward(x) end)
   H.check(not ok, 'Select out of range accepted')
   local c = nn.Convert('chw', 'hwc')
   local input = torch.randn(3, 5, 4)
   H.close(c:forward(input), input:transpose(1, 3):transpose(1, 2), 0, 'Convert chw->hwc')
   H.close(c:backward(input, c.output), input, 0, 'Convert backward')
end)

H.finish()
