-- The fused kernels (torch._nn: softmax, batch normalisation, criterions) against plain-Lua
-- references written with tensor methods here: every form (vector, batch, spatial), Float and
-- Double, strided (non-contiguous) inputs, more than one thread, and the kernels' errors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local unpack = table.unpack or unpack

local TYPES = { 'torch.DoubleTensor', 'torch.FloatTensor' }
local function tol(ty) return ty == 'torch.FloatTensor' and 2e-5 or 1e-11 end

-- A tensor of `size` (a table) in type ty whose elements are strided: a transposed view of a
-- larger random tensor, narrowed so that it starts past an offset.
local function strided(ty, size, lo, hi)
   local n = #size
   local big = {}
   for i = 1, n do big[i] = size[n + 1 - i] end
   big[1] = big[1] + 2
   local t = torch.Tensor(unpack(big)):type(ty)
   if lo then t:uniform(lo, hi) else t:normal() end
   t = t:narrow(1, 2, size[n])
   local perm = {}
   for i = 1, n do perm[i] = n + 1 - i end
   t = n > 1 and t:permute(unpack(perm)) or t
   H.check(n == 1 or not t:isContiguous(), 'strided: made a contiguous tensor')
   return t
end

local function softmaxRef(x, d, log)
   x = x:double()
   local m = torch.max(x, d)
   local shifted = x - m:expandAs(x)
   local s = torch.exp(shifted):sum(d)
   if log then return shifted - torch.log(s):expandAs(x) end
   return torch.exp(shifted):cdiv(s:expandAs(x))
end

local function softmaxGradRef(g, y, d, log)
   g, y = g:double(), y:double()
   if log then return g - torch.exp(y):cmul(g:sum(d):expandAs(g)) end
   return torch.cmul(y, g - torch.cmul(g, y):sum(d):expandAs(g))
end

local SHAPES = { { 7 }, { 5, 9 }, { 4, 3, 5 }, { 3, 4, 2, 5 } }

for _, ty in ipairs(TYPES) do
   for _, log in ipairs({ false, true }) do
      for _, size in ipairs(SHAPES) do
         local name = string.format('%s %s %dD', log and 'LogSoftMax' or 'SoftMax', ty, #size)
         H.case(name, function()
            local m = (log and nn.LogSoftMax() or nn.SoftMax()):type(ty)
            local x = strided(ty, size)
            local d = nn.softmaxDim(#size, name)
            local y = m:forward(x)
            H.check(torch.type(y) == ty, '%s: output of type %s', name, torch.type(y))
            H.close(y, softmaxRef(x, d, log), tol(ty), name .. ' forward')
            local g = strided(ty, size)
            local gi = m:backward(x, g)
            H.close(gi, softmaxGradRef(g, y, d, log), tol(ty), name .. ' backward')
         end)
      end
   end
end

-- Batch normalisation: the statistics and both passes written out per channel.
local function bnRef(x, C, train, rm, rv, w, b, eps, momentum)
   -- x as rows (M x C)
   local nd = x:dim()
   local rows
   if nd == 2 then rows = x:double() else
      local perm = { 1 }
      for i = 3, nd do perm[#perm + 1] = i end
      perm[#perm + 1] = 2
      rows = x:double():permute(unpack(perm)):contiguous():view(-1, C)
   end
   local M = rows:size(1)
   local mean, var
   if train then
      mean = rows:mean(1)
      var = (rows - mean:expandAs(rows)):pow(2):mean(1)
      rm:mul(1 - momentum):add(momentum, mean:view(-1))
      rv:mul(1 - momentum):add(momentum, var:view(-1) * (M / (M - 1)))
   else
      mean, var = rm:view(1, -1):clone(), rv:view(1, -1):clone()
   end
   local invstd = var:add(eps):sqrt():pow(-1)
   local xhat = (rows - mean:expandAs(rows)):cmul(invstd:expandAs(rows))
   local y = torch.cmul(xhat, w:view(1, -1):expandAs(rows)):add(b:view(1, -1):expandAs(rows))
   return rows, y, xhat, invstd
end

local function toRows(t, C)
   local nd = t:dim()
   if nd == 2 then return t:double() end
   local perm = { 1 }
   for i = 3, nd do perm[#perm + 1] = i end
   perm[#perm + 1] = 2
   return t:double():permute(unpack(perm)):contiguous():view(-1, C)
end

local BN = { { 'BatchNormalization', { 6, 4 } }, { 'SpatialBatchNormalization', { 3, 4, 5, 2 } },
   { 'VolumetricBatchNormalization', { 2, 3, 2, 3, 2 } } }

for _, ty in ipairs(TYPES) do
   for _, spec in ipairs(BN) do
      for _, train in ipairs({ true, false }) do
         local name = string.format('%s %s %s', spec[1], ty, train and 'train' or 'eval')
         H.case(name, function()
            local size = spec[2]
            local C = size[2]
            local m = nn[spec[1]](C, 1e-3, 0.2):type(ty)
            m.weight:uniform(0.5, 1.5)
            m.bias:uniform(-1, 1)
            m.running_mean:uniform(-1, 1)
            m.running_var:uniform(0.5, 2)
            if not train then m:evaluate() end
            local rm, rv = m.running_mean:double(), m.running_var:double()
            local x = strided(ty, size)
            local g = strided(ty, size)
            local y = m:forward(x)
            local rows, yref, xhat, invstd = bnRef(x, C, train, rm, rv, m.weight:double(), m.bias:double(), 1e-3, 0.2)
            H.close(toRows(y, C), yref, 10 * tol(ty), name .. ' output')
            H.close(m.running_mean, rm, tol(ty), name .. ' running mean')
            H.close(m.running_var, rv, tol(ty), name .. ' running variance')
            m:zeroGradParameters()
            m.gradWeight:fill(0.25)
            local gi = m:backward(x, g, 0.5)
            local gr = toRows(g, C)
            local giRef
            if train then
               local M = rows:size(1)
               local gmean = gr:mean(1)
               local gx = torch.cmul(gr, xhat):mean(1)
               giRef = (gr - gmean:expandAs(gr) - torch.cmul(xhat, gx:expandAs(xhat))):cmul(invstd:expandAs(gr))
               local _ = M
            else
               giRef = torch.cmul(gr, invstd:expandAs(gr))
            end
            giRef:cmul(m.weight:double():view(1, -1):expandAs(giRef))
            H.close(toRows(gi, C), giRef, 10 * tol(ty), name .. ' gradInput')
            H.close(m.gradWeight, torch.cmul(gr, xhat):sum(1):mul(0.5):add(0.25), 10 * tol(ty), name .. ' gradWeight')
            H.close(m.gradBias, gr:sum(1):mul(0.5), 10 * tol(ty), name .. ' gradBias')
            -- updateGradInput and accGradParameters apart give what backward gave.
            local gi2 = m:updateGradInput(x, g):clone()
            H.close(gi2, gi, 0, name .. ' updateGradInput alone')
            m:zeroGradParameters()
            m:accGradParameters(x, g, 0.5)
            H.close(m.gradBias, gr:sum(1):mul(0.5), 10 * tol(ty), name .. ' accGradParameters alone')
         end)
      end
   end
end

-- Pointwise criterions: loss and gradient (summed, so that the reference is the plain formula).
local function pointwise(name, lossRef, gradRef, lo, hi, make)
   for _, ty in ipairs(TYPES) do
      for _, size in ipairs({ { 11 }, { 4, 6 }, { 3, 2, 5 } }) do
         H.case(string.format('%s %s %dD', name, ty, #size), function()
            local c = make():type(ty)
            c.sizeAverage = false
            local x, t = strided(ty, size, lo, hi), strided(ty, size, lo, hi)
            if name == 'MarginCriterion' then t:sign() end
            local xd, td = x:double(), t:double()
            H.close(c:forward(x, t), lossRef(xd, td), tol(ty) * math.max(1, math.abs(lossRef(xd, td))), name .. ' loss')
            H.close(c:backward(x, t), gradRef(xd, td), tol(ty), name .. ' gradient')
            c.sizeAverage = true
            H.close(c:forward(x, t) * x:nElement(), lossRef(xd, td), tol(ty) * math.max(1, math.abs(lossRef(xd, td))),
               name .. ' averaged loss')
         end)
      end
   end
end

pointwise('MSECriterion', function(x, t) return (x - t):pow(2):sum() end, function(x, t) return (x - t) * 2 end,
   nil, nil, function() return nn.MSECriterion() end)
pointwise('AbsCriterion', function(x, t) return (x - t):abs():sum() end,
   function(x, t) return (x - t):ge(0):double():mul(2):add(-1) end, nil, nil, function() return nn.AbsCriterion() end)
pointwise('SmoothL1Criterion', function(x, t)
   local d = (x - t):abs()
   local small = d:lt(1):double()
   return (torch.cmul(small, torch.pow(d, 2) * 0.5) + torch.cmul(1 - small, d - 0.5)):sum()
end, function(x, t) return (x - t):clamp(-1, 1) end, nil, nil, function() return nn.SmoothL1Criterion() end)
pointwise('BCECriterion', function(x, t)
   return -(torch.cmul(t, torch.log(x + 1e-12)) + torch.cmul(1 - t, torch.log(1 - x + 1e-12))):sum()
end, function(x, t) return (x - t):cdiv(torch.cmul(1 - x + 1e-12, x + 1e-12)) end, 0.05, 0.95,
   function() return nn.BCECriterion() end)
pointwise('DistKLDivCriterion', function(x, t)
   return torch.cmul(t, torch.log(t) - x):sum()
end, function(_, t) return -t end, 0.05, 1, function() return nn.DistKLDivCriterion() end)
pointwise('MarginCriterion', function(x, t) return (1 - torch.cmul(x, t)):clamp(0, math.huge):sum() end,
   function(x, t) return torch.cmul(torch.cmul(x, t):lt(1):double(), -t) end, -2, 2,
   function() return nn.MarginCriterion() end)

-- BCE with weights per column of a batch.
for _, ty in ipairs(TYPES) do
   H.case('BCECriterion weights ' .. ty, function()
      local w = torch.rand(5):type(ty)
      local c = nn.BCECriterion(w):type(ty)
      local x, t = strided(ty, { 3, 5 }, 0.1, 0.9), strided(ty, { 3, 5 }, 0, 1)
      local xd, td, wd = x:double(), t:double(), w:double():view(1, 5):expand(3, 5)
      local ref = -(torch.cmul(td, torch.log(xd + 1e-12)) + torch.cmul(1 - td, torch.log(1 - xd + 1e-12))):cmul(wd):sum()
      H.close(c:forward(x, t), ref / 15, tol(ty), 'weighted BCE loss')
      H.close(c:backward(x, t), (xd - td):cdiv(torch.cmul(1 - xd + 1e-12, xd + 1e-12)):cmul(wd) / 15, tol(ty),
         'weighted BCE gradient')
   end)
end

-- ClassNLL, CrossEntropy and MultiMargin against per-sample loops.
for _, ty in ipairs(TYPES) do
   H.case('ClassNLLCriterion ' .. ty, function()
      local w = torch.rand(4):add(0.5):type(ty)
      local c = nn.ClassNLLCriterion(w, true, 3):type(ty)
      local x = strided(ty, { 6, 4 })
      local target = torch.LongTensor { 1, 3, 4, 2, 3, 1 }
      local loss, total, grad = 0, 0, torch.zeros(6, 4)
      for i = 1, 6 do
         local k = target[i]
         if k ~= 3 then
            loss = loss - w[k] * x[i][k]
            total = total + w[k]
            grad[i][k] = -w[k]
         end
      end
      local out, tw = c:forward(x, target)
      H.close(out, loss / total, tol(ty), 'ClassNLL loss')
      H.close(tw, total, tol(ty), 'ClassNLL total weight')
      H.close(c:backward(x, target), grad / total, tol(ty), 'ClassNLL gradient')
      -- A vector and a class number.
      local v = strided(ty, { 4 })
      local c1 = nn.ClassNLLCriterion():type(ty)
      H.close(c1:forward(v, 2), -v[2], tol(ty), 'ClassNLL vector')
      H.close(c1:backward(v, 2), torch.Tensor { 0, -1, 0, 0 }, tol(ty), 'ClassNLL vector gradient')
   end)
   H.case('CrossEntropyCriterion ' .. ty, function()
      local c = nn.CrossEntropyCriterion():type(ty)
      local x = strided(ty, { 5, 7 })
      local target = torch.LongTensor { 7, 1, 3, 3, 5 }
      local lsm = softmaxRef(x, 2, true)
      local loss = 0
      for i = 1, 5 do loss = loss - lsm[i][target[i]] end
      H.close(c:forward(x, target), loss / 5, tol(ty), 'CrossEntropy loss')
      local g = torch.exp(lsm)
      for i = 1, 5 do g[i][target[i]] = g[i][target[i]] - 1 end
      H.close(c:backward(x, target), g / 5, tol(ty), 'CrossEntropy gradient')
   end)
   H.case('MultiMarginCriterion ' .. ty, function()
      for p = 1, 2 do
         local w = torch.rand(5):add(0.5):type(ty)
         local c = nn.MultiMarginCriterion(p, w, 0.7):type(ty)
         local x = strided(ty, { 4, 5 })
         local target = torch.LongTensor { 2, 5, 1, 2 }
         local loss, grad = 0, torch.zeros(4, 5)
         for i = 1, 4 do
            local y = target[i]
            for j = 1, 5 do
               local z = 0.7 - x[i][y] + x[i][j]
               if j ~= y and z > 0 then
                  loss = loss + w[y] * (p == 2 and z * z or z)
                  local d = w[y] * (p == 2 and 2 * z or 1) / 20
                  grad[i][j] = grad[i][j] + d
                  grad[i][y] = grad[i][y] - d
               end
            end
         end
         H.close(c:forward(x, target), loss / 20, tol(ty), 'MultiMargin loss p=' .. p)
         H.close(c:backward(x, target), grad, tol(ty), 'MultiMargin gradient p=' .. p)
      end
   end)
end

-- Spread over two threads, the passes give what one thread gives.
H.case('threads', function()
   local x = torch.randn(256, 512):float()
   local xs = torch.randn(2, 16, 64, 64):float()
   local function run()
      local sm = nn.LogSoftMax():float()
      local ss = nn.SpatialSoftMax():float()
      local bn = nn.SpatialBatchNormalization(16):float()
      bn.weight:fill(1.5)
      local mse = nn.MSECriterion():float()
      local y = sm:forward(x):clone()
      local gi = sm:backward(x, x):clone()
      local ys = ss:forward(xs):clone()
      local yb = bn:forward(xs):clone()
      local gb = bn:backward(xs, xs):clone()
      local l = mse:forward(x, x * 0.5)
      return { y, gi, ys, yb, gb, bn.gradWeight:clone(), l }
   end
   torch.setnumthreads(1)
   local one = run()
   torch.setnumthreads(2)
   local two = run()
   torch.setnumthreads(1)
   for i = 1, 6 do H.close(one[i], two[i], 1e-4, 'threads result ' .. i) end
   H.close(one[7], two[7], 1e-6 * one[7], 'threads loss')
end)

-- Other types keep the tensor-method path (cunn's CudaTensor relies on it).
H.case('other types take the Lua path', function()
   local kernels = require 'nn.engine.kernels'
   H.check(kernels.fused('softMax', torch.IntTensor()) == nil, 'an IntTensor has no fused softmax')
   H.check(kernels.fused('softMax', torch.FloatTensor(), torch.DoubleTensor()) == nil, 'mixed types are not fused')
   H.check(kernels.fused('softMax', torch.FloatTensor()) ~= nil, 'a FloatTensor is fused')
end)

local function errors(f, pattern, what)
   local ok, err = pcall(f)
   H.check(not ok, '%s: no error', what)
   H.check(tostring(err):find(pattern, 1, true), '%s: error %q does not mention %q', what, tostring(err), pattern)
end

H.case('errors', function()
   local k = torch._nn
   local x = torch.randn(3, 4)
   errors(function() k.softMax(x, x, 2) end, 'torch._nn.softMax: the output must not share memory', 'aliased')
   errors(function() k.softMax(torch.Tensor(3, 4), x, 3) end, 'torch._nn.softMax: feature dimension 3 out of range',
      'dimension')
   errors(function() k.logSoftMax(torch.Tensor(3, 4), x:t(), 1) end, 'torch._nn.logSoftMax: the input must be contiguous',
      'strided')
   errors(function() k.softMaxBackward(torch.FloatTensor(3, 4), x, x:clone(), 1) end,
      'torch._nn.softMaxBackward: gradInput must have the input\'s type', 'types')
   errors(function() k.softMax(torch.LongTensor(3), torch.LongTensor(3), 1) end, 'torch._nn.softMax: float or double',
      'long')
   errors(function()
      k.batchNorm(torch.Tensor(2, 3, 1), torch.randn(2, 3, 1), nil, nil, torch.zeros(3), torch.ones(3), nil, nil, true,
         1e-5, 0.1)
   end, 'torch._nn.batchNorm: the saved mean is needed in training', 'saved')
   errors(function()
      k.batchNorm(torch.Tensor(2, 3, 1), torch.randn(2, 3, 1), nil, nil, torch.zeros(4), torch.ones(3), nil, nil, false,
         1e-5, 0.1)
   end, 'torch._nn.batchNorm: the running mean has 4 elements, 3 expected', 'running mean size')
   errors(function() k.batchNorm(torch.Tensor(6), torch.randn(6), nil, nil, torch.zeros(3), torch.ones(3), nil, nil,
      false, 1e-5, 0.1) end, 'torch._nn.batchNorm: the input must be N x C x S', 'batch norm dims')
   errors(function() k.pointwiseLoss('hinge', x, x) end, "torch._nn.pointwiseLoss: unknown loss 'hinge'", 'loss name')
   errors(function() k.pointwiseLoss('mse', x, torch.randn(5)) end, 'torch._nn.pointwiseLoss: the target has 5 elements',
      'target size')
   errors(function() k.pointwiseLoss('bce', torch.Tensor { 2 }, torch.Tensor { 1 }) end, 'between 0 and 1', 'bce range')
   errors(function() k.classNLL(x, torch.LongTensor { 1, 5, 2 }, nil, -100) end,
      'torch._nn.classNLL: target 5 out of range (1 to 4)', 'class range')
   errors(function() k.classNLL(x, torch.Tensor { 1, 2, 2 }, nil, -100) end, 'torch._nn.classNLL: the target must have',
      'class type')
   errors(function() k.multiMargin(x, torch.LongTensor { 1, 2, 2 }, nil, 3, 1) end, 'p must be 1 or 2', 'power')
   errors(function() nn.ClassNLLCriterion():forward(x, torch.LongTensor { 1, 9, 2 }) end, 'out of range', 'module range')
   errors(function() nn.BCECriterion():forward(torch.Tensor { 1.5 }, torch.Tensor { 1 }) end, 'between 0 and 1',
      'module bce')
end)

H.finish()
