-- The criterions: each one's loss on a small case worked by hand, its gradient against central
-- differences (vector and batch, sizeAverage both ways), type conversion, saving and errors; the
-- criterions made of criterions; nn.StochasticGradient.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

-- The criterion's gradient with respect to `input` (a tensor, or a table of tensors) against
-- central differences of its loss.
local function gradcheck(crit, input, target, what, tol)
   tol = tol or 1e-6
   local leaves = {}
   local function collect(x)
      if torch.isTensor(x) then leaves[#leaves + 1] = x else for _, v in ipairs(x) do collect(v) end end
   end
   collect(input)
   crit:forward(input, target)
   local grads = {}
   local function flatten(g)
      if torch.isTensor(g) then grads[#grads + 1] = g:clone() else for _, v in ipairs(g) do flatten(v) end end
   end
   flatten(crit:backward(input, target))
   H.check(#grads == #leaves, '%s: %d gradients for %d inputs', what, #grads, #leaves)
   local eps = 1e-6
   for k, x in ipairs(leaves) do
      local flat = x:view(-1)
      local g = grads[k]:contiguous():view(-1)
      H.check(g:nElement() == flat:nElement(), '%s: gradient %d has %d elements, input %d', what, k,
         g:nElement(), flat:nElement())
      for i = 1, flat:nElement() do
         local orig = flat[i]
         flat[i] = orig + eps
         local up = crit:forward(input, target)
         flat[i] = orig - eps
         local down = crit:forward(input, target)
         flat[i] = orig
         local numeric = (up - down) / (2 * eps)
         H.check(math.abs(numeric - g[i]) < tol, '%s: d/dx[%d][%d] is %g, central differences say %g', what, k, i,
            g[i], numeric)
      end
   end
end

-- Checks the gradient with sizeAverage true and false, and that averaging divides by `count`.
local function bothWays(crit, input, target, what, count, tol)
   crit.sizeAverage = true
   local mean = crit:forward(input, target)
   gradcheck(crit, input, target, what .. ' (averaged)', tol)
   crit.sizeAverage = false
   local sum = crit:forward(input, target)
   gradcheck(crit, input, target, what .. ' (summed)', tol)
   H.close(mean * count, sum, 1e-9 * math.max(1, math.abs(sum)), what .. ': average times count')
   crit.sizeAverage = true
end

local function errors(f, pattern, what)
   local ok, err = pcall(f)
   H.check(not ok, '%s: no error', what)
   H.check(tostring(err):find(pattern, 1, true), '%s: error %q does not mention %q', what, tostring(err), pattern)
end

-- The criterion saved and read back gives the same loss and gradient.
local function roundtrip(crit, input, target, what)
   local loss = crit:forward(input, target)
   local f = torch.MemoryFile('rw'):binary()
   f:writeObject(crit)
   f:seek(1)
   local copy = f:readObject()
   f:close()
   H.check(torch.type(copy) == torch.type(crit), '%s: read back a %s', what, torch.type(copy))
   H.close(copy:forward(input, target), loss, 0, what .. ' read back')
end

-- The criterion converted to float gives the double loss and a float gradient.
local function asFloat(crit, input, target, what)
   local loss = crit:forward(input, target)
   local grad = crit:backward(input, target):clone()
   local c = crit:clone():float()
   local fin = input:float()
   local ftarget = torch.isTensor(target) and target:float() or target
   H.close(c:forward(fin, ftarget), loss, 1e-5, what .. ' float loss')
   local fgrad = c:backward(fin, ftarget)
   H.check(torch.type(fgrad) == 'torch.FloatTensor', '%s: float gradient is a %s', what, torch.type(fgrad))
   H.close(fgrad, grad, 1e-5, what .. ' float gradient')
end

H.case('AbsCriterion', function()
   local c = nn.AbsCriterion()
   H.close(c:forward(torch.Tensor { 1, 2, 3 }, torch.Tensor { 0, 2, 5 }), 1, 1e-12, 'loss')
   -- The difference is 0 at the second element: the original's kernel gives it +1.
   H.close(c:backward(torch.Tensor { 1, 2, 3 }, torch.Tensor { 0, 2, 5 }), torch.Tensor { 1, 1, -1 } / 3, 1e-12,
      'gradient')
   bothWays(c, torch.randn(3, 4), torch.randn(3, 4), 'Abs', 12)
   -- A target of another shape with as many elements is matched in order.
   H.close(c:forward(torch.Tensor { { 1, 2 } }, torch.Tensor { 0, 0 }), 1.5, 1e-12, 'reshaped target')
   asFloat(c, torch.randn(5), torch.randn(5), 'Abs')
   roundtrip(c, torch.randn(5), torch.randn(5), 'Abs')
   errors(function() c:forward(torch.randn(3), torch.randn(4)) end, 'nn.AbsCriterion', 'Abs sizes')
end)

H.case('SmoothL1Criterion', function()
   local c = nn.SmoothL1Criterion()
   -- Differences 0.5 and -3: 0.5 * 0.25 and 3 - 0.5.
   H.close(c:forward(torch.Tensor { 1.5, 0 }, torch.Tensor { 1, 3 }), (0.125 + 2.5) / 2, 1e-12, 'loss')
   H.close(c:backward(torch.Tensor { 1.5, 0 }, torch.Tensor { 1, 3 }), torch.Tensor { 0.25, -0.5 }, 1e-12, 'gradient')
   bothWays(c, torch.randn(4, 3):mul(2), torch.randn(4, 3), 'SmoothL1', 12)
   H.check(nn.SmoothL1Criterion(false).sizeAverage == false, 'sizeAverage argument ignored')
   asFloat(c, torch.randn(6), torch.randn(6), 'SmoothL1')
   errors(function() c:forward(torch.randn(3), torch.randn(2)) end, 'nn.SmoothL1Criterion', 'SmoothL1 sizes')
end)

H.case('MSECriterion', function()
   local c = nn.MSECriterion()
   H.close(c:forward(torch.Tensor { 1, 2 }, torch.Tensor { 0, 4 }), 2.5, 1e-12, 'loss')
   H.close(c:backward(torch.Tensor { 1, 2 }, torch.Tensor { 0, 4 }), torch.Tensor { 1, -2 }, 1e-12, 'gradient')
   bothWays(c, torch.randn(3, 5), torch.randn(3, 5), 'MSE', 15)
   H.close(c:forward(torch.Tensor { { 1, 2 } }, torch.Tensor { 0, 4 }), 2.5, 1e-12, 'reshaped target')
   asFloat(c, torch.randn(3, 2), torch.randn(3, 2), 'MSE')
   errors(function() c:forward(torch.randn(3), torch.randn(2)) end, 'nn.MSECriterion', 'MSE sizes')
end)

H.case('WeightedMSECriterion', function()
   local c = nn.WeightedMSECriterion(torch.Tensor { 2, 0.5 })
   -- The target is scaled: (1 - 2*1)^2 + (1 - 0.5*4)^2 = 2, averaged over 2.
   H.close(c:forward(torch.Tensor { 1, 1 }, torch.Tensor { 1, 4 }), 1, 1e-12, 'loss')
   -- A batch: each row of the target is scaled alike.
   H.close(c:forward(torch.Tensor { { 1, 1 }, { 2, 2 } }, torch.Tensor { { 1, 4 }, { 1, 4 } }), (1 + 1 + 0 + 0) / 4,
      1e-12, 'batch loss')
   bothWays(c, torch.randn(3, 2), torch.randn(3, 2), 'WeightedMSE', 6)
   local w = nn.WeightedMSECriterion(torch.rand(2, 3))
   gradcheck(w, torch.randn(2, 3), torch.randn(2, 3), 'WeightedMSE matrix weight')
   errors(function() c:forward(torch.randn(3), torch.randn(3)) end, 'nn.WeightedMSECriterion', 'WeightedMSE sizes')
end)

H.case('MarginCriterion', function()
   local c = nn.MarginCriterion()
   -- x y = 2 (beyond the margin), 0.5, -1: losses 0, 0.5, 2.
   local x, y = torch.Tensor { 2, 0.5, 1 }, torch.Tensor { 1, 1, -1 }
   H.close(c:forward(x, y), 2.5 / 3, 1e-12, 'loss')
   H.close(c:backward(x, y), torch.Tensor { 0, -1, 1 } / 3, 1e-12, 'gradient')
   H.close(nn.MarginCriterion(3):forward(x, y), (1 + 2.5 + 4) / 3, 1e-12, 'margin 3')
   bothWays(c, torch.randn(10), torch.Tensor(10):random(0, 1):mul(2):add(-1), 'Margin', 10)
   asFloat(c, torch.randn(4), torch.Tensor { 1, -1, 1, -1 }, 'Margin')
end)

H.case('SoftMarginCriterion', function()
   local c = nn.SoftMarginCriterion()
   H.close(c:forward(torch.Tensor { 0, 1 }, torch.Tensor { 1, -1 }), (math.log(2) + math.log(1 + math.exp(1))) / 2,
      1e-12, 'loss')
   bothWays(c, torch.randn(2, 5), torch.Tensor(2, 5):random(0, 1):mul(2):add(-1), 'SoftMargin', 10)
   -- Far from the margin the loss neither overflows nor loses its small part.
   H.close(c:forward(torch.Tensor { 1000 }, torch.Tensor { -1 }), 1000, 1e-9, 'large loss')
   H.close(c:forward(torch.Tensor { 40 }, torch.Tensor { 1 }), math.exp(-40), 1e-25, 'small loss')
   asFloat(c, torch.randn(4), torch.Tensor { 1, -1, 1, -1 }, 'SoftMargin')
end)

H.case('DistKLDivCriterion', function()
   local c = nn.DistKLDivCriterion()
   -- A zero target counts for nothing.
   local x, t = torch.Tensor { math.log(0.5), math.log(0.5) }, torch.Tensor { 1, 0 }
   H.close(c:forward(x, t), (1 * (0 - math.log(0.5))) / 2, 1e-12, 'loss')
   H.close(c:backward(x, t), torch.Tensor { -0.5, 0 }, 1e-12, 'gradient')
   H.check(nn.DistKLDivCriterion(false).sizeAverage == false, 'sizeAverage argument ignored')
   local p = torch.rand(3, 4)
   bothWays(c, torch.randn(3, 4), p, 'DistKLDiv', 12)
   asFloat(c, torch.randn(5), torch.rand(5), 'DistKLDiv')
   errors(function() c:forward(torch.randn(4), torch.rand(2, 2)) end, 'same size', 'DistKLDiv sizes')
end)

H.case('BCECriterion', function()
   local c = nn.BCECriterion()
   local x, t = torch.Tensor { 0.8, 0.4 }, torch.Tensor { 1, 0 }
   H.close(c:forward(x, t), -(math.log(0.8) + math.log(0.6)) / 2, 1e-9, 'loss')
   H.close(c:backward(x, t), torch.Tensor { -1 / 0.8, 1 / 0.6 } / 2, 1e-9, 'gradient')
   local input = torch.rand(3, 4):mul(0.9):add(0.05)
   local target = torch.rand(3, 4)
   bothWays(c, input, target, 'BCE', 12, 1e-5)
   -- Weights: one per column of a batch, or per element of a vector.
   local w = torch.rand(4)
   local cw = nn.BCECriterion(w)
   bothWays(cw, input, target, 'BCE weighted batch', 12, 1e-5)
   bothWays(cw, input[1]:clone(), target[1]:clone(), 'BCE weighted vector', 4, 1e-5)
   H.close(cw:forward(input[2]:clone(), target[2]:clone()) * 4,
      -(torch.log(input[2]):cmul(target[2]) + torch.log(1 - input[2]):cmul(1 - target[2])):cmul(w):sum(), 1e-9,
      'weighted loss')
   H.check(cw:__len() == 4 and c:__len() == 0, '__len is the number of weights')
   asFloat(c, input, target, 'BCE')
   errors(function() c:forward(torch.Tensor { 1.5 }, torch.Tensor { 1 }) end, 'between 0 and 1', 'BCE range')
   errors(function() cw:forward(torch.rand(3, 5), torch.rand(3, 5)) end, 'weights', 'BCE weights')
end)

H.case('MultiMarginCriterion', function()
   local c = nn.MultiMarginCriterion()
   local x = torch.Tensor { 0.1, 0.2, 0.4, 0.8 }
   -- Class 3: 1 - 0.4 + {0.1, 0.2, 0.8} = {0.7, 0.8, 1.4}, over 4 classes.
   H.close(c:forward(x, 3), 2.9 / 4, 1e-12, 'loss')
   H.close(c:backward(x, 3), torch.Tensor { 0.25, 0.25, -0.75, 0.25 }, 1e-12, 'gradient')
   H.close(c:forward(x, torch.LongTensor { 3 }), 2.9 / 4, 1e-12, 'tensor target')
   -- p = 2 with a margin of 0.5: {0.2, 0.3, 0.9} squared.
   H.close(nn.MultiMarginCriterion(2, nil, 0.5):forward(x, 3), (0.04 + 0.09 + 0.81) / 4, 1e-12, 'p = 2')
   local w = torch.Tensor { 1, 2, 3, 4 }
   H.close(nn.MultiMarginCriterion(1, w):forward(x, 3), 3 * 2.9 / 4, 1e-12, 'weights')
   local batch, classes = torch.randn(5, 4), torch.LongTensor { 1, 4, 2, 2, 3 }
   for _, p in ipairs { 1, 2 } do
      bothWays(nn.MultiMarginCriterion(p, w, 0.7), batch, classes, 'MultiMargin p=' .. p, 5)
      gradcheck(nn.MultiMarginCriterion(p), torch.randn(6), 2, 'MultiMargin vector p=' .. p)
   end
   asFloat(c, batch, classes, 'MultiMargin')
   errors(function() c:forward(x, 5) end, 'out of range', 'MultiMargin target')
   errors(function() c:forward(batch, torch.LongTensor { 1, 2 }) end, '2 targets for 5 samples', 'MultiMargin count')
   errors(function() nn.MultiMarginCriterion(3) end, 'p = 1 and p = 2', 'MultiMargin p')
end)

H.case('MultiLabelMarginCriterion', function()
   local c = nn.MultiLabelMarginCriterion()
   local x = torch.Tensor { 0.1, 0.2, 0.4, 0.8 }
   -- Targets 4 and 1 (the 0 ends the list; the 2 after it is ignored); others 2 and 3:
   -- {1 - 0.8 + 0.2, 1 - 0.8 + 0.4, 1 - 0.1 + 0.2, 1 - 0.1 + 0.4} over 4 classes.
   local y = torch.Tensor { 4, 1, 0, 2 }
   H.close(c:forward(x, y), 3.4 / 4, 1e-12, 'loss')
   H.close(c:backward(x, y), torch.Tensor { -0.5, 0.5, 0.5, -0.5 }, 1e-12, 'gradient')
   H.close(c.isTarget, torch.Tensor { 1, 0, 0, 1 }, 0, 'isTarget')
   local batch = torch.randn(3, 5)
   local targets = torch.LongTensor { { 1, 2, 0, 0, 0 }, { 5, 0, 0, 0, 0 }, { 0, 3, 0, 0, 0 } }
   bothWays(c, batch, targets, 'MultiLabelMargin', 3)
   errors(function() c:forward(x, torch.Tensor { 5, 0, 0, 0 }) end, 'out of range', 'MultiLabelMargin target')
   errors(function() c:forward(batch, torch.Tensor { 1, 0, 0, 0, 0 }) end, 'size of the input', 'MultiLabelMargin size')
end)

H.case('MultiLabelSoftMarginCriterion', function()
   local c = nn.MultiLabelSoftMarginCriterion()
   local x, y = torch.Tensor { 0, 2 }, torch.Tensor { 1, 0 }
   H.close(c:forward(x, y), (math.log(2) + math.log(1 + math.exp(2))) / 2, 1e-12, 'loss')
   H.close(c:backward(x, y), torch.Tensor { -0.5, 1 / (1 + math.exp(-2)) } / 2, 1e-12, 'gradient')
   local batch, targets = torch.randn(3, 4), torch.rand(3, 4):round()
   bothWays(c, batch, targets, 'MultiLabelSoftMargin', 12)
   local w = torch.rand(4)
   bothWays(nn.MultiLabelSoftMarginCriterion(w), batch, targets, 'MultiLabelSoftMargin weighted', 12)
   gradcheck(nn.MultiLabelSoftMarginCriterion(w), batch[1]:clone(), targets[1]:clone(), 'weighted vector')
   H.close(c:forward(torch.Tensor { -800 }, torch.Tensor { 1 }), 800, 1e-9, 'large loss stays finite')
   asFloat(c, batch, targets, 'MultiLabelSoftMargin')
end)

H.case('ClassNLLCriterion', function()
   local c = nn.ClassNLLCriterion()
   local logp = torch.Tensor { { -1, -2, -3 }, { -0.5, -1.5, -2.5 } }
   H.close(c:forward(logp, torch.LongTensor { 2, 3 }), (2 + 2.5) / 2, 1e-12, 'loss')
   H.close(c:backward(logp, torch.LongTensor { 2, 3 }), torch.Tensor { { 0, -0.5, 0 }, { 0, 0, -0.5 } }, 1e-12,
      'gradient')
   H.close(c:forward(logp[1], 3), 3, 1e-12, 'vector with a number')
   local w = torch.Tensor { 1, 2, 4 }
   local cw = nn.ClassNLLCriterion(w)
   local loss, total = cw:forward(logp, torch.LongTensor { 2, 3 })
   H.close(loss, (2 * 2 + 4 * 2.5) / 6, 1e-12, 'weighted loss')
   H.close(total, 6, 0, 'total weight')
   -- Averaged over the total weight, 1 + 4 + 4 + 2.
   bothWays(cw, torch.randn(4, 3), torch.LongTensor { 1, 3, 3, 2 }, 'ClassNLL weighted', 11)
   -- Ignored samples count for nothing.
   local ci = nn.ClassNLLCriterion(nil, true, 0)
   H.close(ci:forward(logp, torch.LongTensor { 0, 3 }), 2.5, 1e-12, 'ignoreIndex')
   H.close(ci:backward(logp, torch.LongTensor { 0, 3 })[1], torch.zeros(3), 0, 'ignored gradient')
   H.close(ci:forward(logp[1], 0), 0, 0, 'all ignored')
   asFloat(c, logp, torch.LongTensor { 2, 3 }, 'ClassNLL')
   errors(function() c:forward(logp, torch.LongTensor { 1, 4 }) end, 'out of range', 'ClassNLL target')
   errors(function() c:forward(logp, torch.LongTensor { 1 }) end, '1 targets for 2 samples', 'ClassNLL count')
end)

H.case('CrossEntropyCriterion', function()
   local c = nn.CrossEntropyCriterion()
   local scores = torch.Tensor { { 1, 2, 3 }, { 0, 0, 0 } }
   local want = (-(2 - math.log(math.exp(1) + math.exp(2) + math.exp(3))) + math.log(3)) / 2
   H.close(c:forward(scores, torch.LongTensor { 2, 1 }), want, 1e-12, 'loss')
   gradcheck(c, torch.randn(4, 5), torch.LongTensor { 1, 5, 2, 2 }, 'CrossEntropy')
   gradcheck(c, torch.randn(5), 4, 'CrossEntropy vector')
   local s = nn.CrossEntropyCriterion(torch.rand(5))
   s.sizeAverage = false
   gradcheck(s, torch.randn(4, 5), torch.LongTensor { 1, 5, 2, 2 }, 'CrossEntropy weighted, summed')
   H.check(s.nll.sizeAverage == false, 'sizeAverage not passed on')
   -- sizeAverage reads as nll's; nll's set directly is kept while this one is unchanged.
   local d = nn.CrossEntropyCriterion()
   H.check(d.sizeAverage == true, 'default sizeAverage is %s', tostring(d.sizeAverage))
   d.nll.sizeAverage = false
   local x, t = torch.randn(3, 4), torch.LongTensor { 1, 2, 3 }
   local summed = d:forward(x, t)
   H.check(d.nll.sizeAverage == false, 'nll.sizeAverage overwritten')
   d.sizeAverage = true
   H.close(d:forward(x, t), summed, 1e-12, 'unchanged sizeAverage passed on')
   d.sizeAverage = false
   d:forward(x, t)
   d.sizeAverage = true
   H.close(d:forward(x, t) * 3, summed, 1e-12, 'changed sizeAverage not passed on')
   -- A batch of one is squeezed to a vector, its gradient shaped as the input.
   local one = torch.randn(1, 4)
   d:forward(one, torch.LongTensor { 2 })
   H.check(d:backward(one, torch.LongTensor { 2 }):dim() == 2, 'gradient shape')
end)

H.case('ClassSimplexCriterion', function()
   local c = nn.ClassSimplexCriterion(4)
   local v = c.simplex
   H.check(v:size(1) == 4 and v:size(2) == 4, 'simplex of %dx%d', v:size(1), v:size(2))
   -- Unit vertices, pairwise dot products -1/3, last coordinate 0.
   local gram = v * v:t()
   H.close(gram, torch.Tensor(4, 4):fill(-1 / 3) + torch.eye(4) * (4 / 3), 1e-12, 'Gram matrix')
   H.close(v:select(2, 4), torch.zeros(4), 0, 'last coordinate')
   H.close(c:forward(v[2]:clone(), 2), 0, 1e-12, 'a vertex is at its class')
   H.close(c:forward(torch.zeros(4), 1), 1 / 4, 1e-12, 'loss at the origin')
   bothWays(c, torch.randn(3, 4), torch.LongTensor { 1, 4, 2 }, 'ClassSimplex', 12)
   H.close(c:getTopPrediction(v:narrow(1, 2, 3)), torch.LongTensor { 2, 3, 4 }, 0, 'top predictions')
   errors(function() c:forward(torch.randn(4), 5) end, 'out of range', 'ClassSimplex target')
   errors(function() nn.ClassSimplexCriterion(1) end, 'greater than 1', 'ClassSimplex classes')
end)

H.case('HingeEmbeddingCriterion', function()
   local c = nn.HingeEmbeddingCriterion(2)
   local x, y = torch.Tensor { 0.3, 2.1, 1.8, 0 }, torch.Tensor { 1, -1, -1, 1 }
   H.close(c:forward(x, y), (0.3 + 0.2) / 4, 1e-12, 'loss')
   H.close(c:backward(x, y), torch.Tensor { 1, 0, -1, 1 } / 4, 1e-12, 'gradient')
   H.close(c:forward(torch.Tensor { 0.5 }, -1), 1.5, 1e-12, 'number label')
   bothWays(c, torch.rand(6):mul(3), torch.Tensor { 1, -1, 1, -1, -1, 1 }, 'HingeEmbedding', 6)
end)

H.case('L1HingeEmbeddingCriterion', function()
   local c = nn.L1HingeEmbeddingCriterion(2)
   local a, b = torch.Tensor { 1, 2 }, torch.Tensor { 0.5, 3 }
   H.close(c:forward({ a, b }, 1), 1.5, 1e-12, 'similar')
   H.close(c:forward({ a, b }, -1), 0.5, 1e-12, 'dissimilar')
   local g = c:backward({ a, b }, 1)
   H.close(g[1], torch.Tensor { 1, -1 }, 0, 'similar gradient')
   H.close(g[2], torch.Tensor { -1, 1 }, 0, 'similar gradient of x2')
   H.close(c:backward({ a, b }, -1)[1], torch.Tensor { -1, 1 }, 0, 'dissimilar gradient')
   H.close(nn.L1HingeEmbeddingCriterion(1):backward({ a, b }, -1)[1], torch.zeros(2), 0, 'beyond the margin')
   gradcheck(nn.L1HingeEmbeddingCriterion(5), { torch.randn(4), torch.randn(4) }, -1, 'L1HingeEmbedding')
end)

H.case('CosineEmbeddingCriterion', function()
   local c = nn.CosineEmbeddingCriterion(0.6)
   local v1, v2 = torch.Tensor { 1, 0 }, torch.Tensor { 0.5, math.sqrt(3) / 2 }
   -- cos = 0.5: below the margin for a dissimilar pair.
   H.close(c:forward({ v1, v2 }, -1), 0, 1e-12, 'dissimilar within the margin')
   H.close(c:backward({ v1, v2 }, -1)[1], torch.zeros(2), 0, 'no gradient')
   H.close(c:forward({ v1, v2 }, 1), 0.5, 1e-9, 'similar')
   H.close(nn.CosineEmbeddingCriterion(0.2):forward({ v1, v2 }, -1), 0.3, 1e-9, 'dissimilar beyond the margin')
   local x1, x2 = torch.randn(4, 3), torch.randn(4, 3)
   local y = torch.Tensor { 1, -1, -1, 1 }
   bothWays(nn.CosineEmbeddingCriterion(-0.5), { x1, x2 }, y, 'CosineEmbedding', 4)
   gradcheck(nn.CosineEmbeddingCriterion(0.1), { torch.randn(5), torch.randn(5) }, 1, 'CosineEmbedding vector')
   errors(function() c:forward({ x1, x2 }, torch.Tensor { 1, 1 }) end, '2 labels for 4 pairs', 'labels')
   errors(function() c:forward(x1, 1) end, 'table of two tensors', 'not a pair')
end)

H.case('MarginRankingCriterion', function()
   local c = nn.MarginRankingCriterion(1)
   H.close(c:forward({ torch.Tensor { 2 }, torch.Tensor { 1.5 } }, 1), 0.5, 1e-12, 'ranked right, within the margin')
   H.close(c:forward({ torch.Tensor { 2 }, torch.Tensor { 1.5 } }, -1), 1.5, 1e-12, 'ranked wrong')
   local g = c:backward({ torch.Tensor { 2 }, torch.Tensor { 1.5 } }, 1)
   H.close(g[1], torch.Tensor { -1 }, 0, 'gradient of x1')
   H.close(g[2], torch.Tensor { 1 }, 0, 'gradient of x2')
   local y = torch.Tensor { 1, -1, 1, -1, 1 }
   bothWays(nn.MarginRankingCriterion(0.3), { torch.randn(5), torch.randn(5) }, y, 'MarginRanking', 5)
   local f = c:clone():float()
   local gf = f:backward({ torch.FloatTensor { 2 }, torch.FloatTensor { 1.5 } }, 1)
   H.check(torch.type(gf[1]) == 'torch.FloatTensor', 'float gradient is a %s', torch.type(gf[1]))
end)

H.case('DistanceRatioCriterion', function()
   local c = nn.DistanceRatioCriterion()
   local X, Y = torch.Tensor(8, 1):fill(1), torch.Tensor(8, 1):fill(1)
   H.close(c:forward({ X, Y }), 1 + math.log(2 * math.exp(-1)), 1e-12, 'loss')
   local g = c:backward({ X, Y })
   H.close(g[1]:sum(), 0.5, 1e-12, 'gradient of X')
   H.close(g[2]:sum(), -0.5, 1e-12, 'gradient of Y')
   bothWays(c, { torch.rand(6):mul(3), torch.rand(6):mul(3) }, nil, 'DistanceRatio', 6)
   H.close(c:forward({ torch.Tensor { 2000 }, torch.Tensor { 0 } }), 2000, 1e-9, 'large distances stay finite')
end)

H.case('L1Cost', function()
   local c = nn.L1Cost()
   H.close(c:forward(torch.Tensor { -1, 2, 0 }), 3, 0, 'loss')
   H.close(c:backward(torch.Tensor { -1, 2, 0 }), torch.Tensor { -1, 1, 0 }, 0, 'gradient')
   gradcheck(c, torch.randn(3, 4), nil, 'L1Cost')
end)

H.case('ParallelCriterion', function()
   local nll, mse = nn.ClassNLLCriterion(), nn.MSECriterion()
   local pc = nn.ParallelCriterion():add(nll, 0.5):add(mse)
   local input = { torch.randn(2, 4), torch.randn(2, 3) }
   local target = { torch.LongTensor { 1, 4 }, torch.randn(2, 3) }
   local want = 0.5 * nll:forward(input[1], target[1]) + mse:forward(input[2], target[2])
   H.close(pc:forward(input, target), want, 1e-12, 'loss')
   gradcheck(pc, input, target, 'Parallel')
   -- Nested tables, and one target for all.
   local inner = nn.ParallelCriterion(true):add(nn.MSECriterion()):add(nn.AbsCriterion(), 2)
   local outer = nn.ParallelCriterion():add(nn.MSECriterion(), 0.3):add(inner)
   local nested = { torch.randn(3), { torch.randn(3), torch.randn(3) } }
   gradcheck(outer, nested, { torch.randn(3), torch.randn(3) }, 'nested Parallel')
   local g = outer:backward(nested, { torch.randn(3), torch.randn(3) })
   H.check(type(g[2]) == 'table' and torch.isTensor(g[2][2]), 'the gradient does not follow the input')
   pc:float()
   local gf = pc:backward({ input[1]:float(), input[2]:float() }, { target[1], target[2]:float() })
   H.check(torch.type(gf[2]) == 'torch.FloatTensor', 'float gradient is a %s', torch.type(gf[2]))
   errors(function() nn.ParallelCriterion():add(mse):forward({ torch.randn(2) }, torch.randn(2)) end,
      'one target per criterion', 'target not a table')
end)

H.case('MultiCriterion', function()
   local mse, abs = nn.MSECriterion(), nn.AbsCriterion()
   local mc = nn.MultiCriterion():add(mse, 0.5):add(abs)
   H.check(torch.type(mc.weights) == 'torch.DoubleStorage' and mc.weights:size() == 2, 'weights storage')
   local x, t = torch.randn(3, 2), torch.randn(3, 2)
   H.close(mc:forward(x, t), 0.5 * mse:forward(x, t) + abs:forward(x, t), 1e-12, 'loss')
   gradcheck(mc, x, t, 'Multi')
   -- Table inputs through criterions that take tables.
   local pcs = nn.MultiCriterion():add(nn.ParallelCriterion():add(nn.MSECriterion()):add(nn.MSECriterion()), 2)
   gradcheck(pcs, { torch.randn(2), torch.randn(3) }, { torch.randn(2), torch.randn(3) }, 'Multi of tables')
   mc:float()
   H.check(torch.type(mc:backward(x:float(), t:float())) == 'torch.FloatTensor', 'float gradient')
   roundtrip(mc, x:float(), t:float(), 'Multi')
end)

H.case('ModuleCriterion', function()
   local mc = nn.ModuleCriterion(nn.MSECriterion(), nn.Tanh(), nn.Sigmoid())
   local x, t = torch.randn(4, 2), torch.randn(4, 2)
   local want = nn.MSECriterion():forward(torch.tanh(x), torch.sigmoid(t))
   H.close(mc:forward(x, t), want, 1e-12, 'loss')
   gradcheck(mc, x, t, 'Module')
   mc:float()
   H.check(torch.type(mc.inputModule.output) == 'torch.FloatTensor', 'inputModule not converted')
   H.check(torch.type(mc:backward(x:float(), t:float())) == 'torch.FloatTensor', 'float gradient')
end)

H.case('CriterionTable', function()
   local ct = nn.CriterionTable(nn.MSECriterion())
   local x, t = torch.Tensor { 1, 2 }, torch.Tensor { 0, 4 }
   H.close(ct:forward({ x, t }), 2.5, 1e-12, 'loss')
   local g = ct:backward({ x, t }, 1)
   H.close(g[1], torch.Tensor { 1, -2 }, 1e-12, 'gradient')
   errors(function() ct:forward(x) end, 'nn.CriterionTable', 'not a table')
end)

H.case('StochasticGradient', function()
   -- y = 2 x1 - x2 + 0.5, learnt by a Linear from 20 examples.
   local data = {}
   for i = 1, 20 do
      local x = torch.randn(2)
      data[i] = { x, torch.Tensor { 2 * x[1] - x[2] + 0.5 } }
   end
   function data:size() return 20 end
   local model = nn.Linear(2, 1)
   local trainer = nn.StochasticGradient(model, nn.MSECriterion())
   H.check(trainer.learningRate == 0.01 and trainer.maxIteration == 25 and trainer.shuffleIndices
      and trainer.verbose and trainer.learningRateDecay == 0, 'defaults')
   trainer.learningRate = 0.1
   trainer.maxIteration = 30
   local examples, errs = 0, {}
   trainer.hookExample = function(t, example)
      H.check(t == trainer and example[2] ~= nil, 'hookExample arguments')
      examples = examples + 1
   end
   trainer.hookIteration = function(t, iteration, err) errs[iteration] = err end
   local lines = {}
   local print0 = print
   print = function(s) lines[#lines + 1] = s end
   local ok, err = pcall(trainer.train, trainer, data)
   print = print0
   H.check(ok, 'train failed: %s', tostring(err))
   H.check(examples == 20 * 30, '%d examples seen', examples)
   H.check(#errs == 30 and errs[30] < errs[1] * 1e-3, 'error went from %g to %g', errs[1], errs[30] or -1)
   H.check(lines[1] == '# StochasticGradient: training', 'first line %q', tostring(lines[1]))
   H.check(lines[2] == '# current error = ' .. errs[1], 'second line %q', tostring(lines[2]))
   H.check(lines[#lines - 1] == '# StochasticGradient: you have reached the maximum number of iterations',
      'line %q', tostring(lines[#lines - 1]))
   H.check(lines[#lines] == '# training error = ' .. errs[30], 'last line %q', tostring(lines[#lines]))
   H.close(model.weight, torch.Tensor { { 2, -1 } }, 1e-3, 'learnt weight')
   -- Quiet, in order: only the first and the last lines.
   trainer.verbose = false
   trainer.shuffleIndices = false
   trainer.maxIteration = 2
   lines = {}
   print = function(s) lines[#lines + 1] = s end
   ok, err = pcall(trainer.train, trainer, data)
   print = print0
   H.check(ok and #lines == 3, 'quiet training printed %d lines (%s)', #lines, tostring(err))
end)

H.finish()
