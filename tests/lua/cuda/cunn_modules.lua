-- The GPU checks of cunn: every nn module and criterion (lua/nn, enumerated from the nn table, so
-- that a new class without a case here fails) built on the host (FloatTensor), cloned and
-- converted with :cuda(), run forward and backward (updateGradInput and accGradParameters) on the
-- same data, and compared with the host: output, gradInput, every parameter's gradient, the
-- parameters after updateParameters, and the running statistics where a module keeps them.
-- Then getParameters on the device, a criterion kept as a model's field, torch.save/torch.load
-- of a device model, and nn.StochasticGradient on the device.
--
--    th tests/lua/cuda/cunn_modules.lua [name-pattern]
--
-- (Not named cunn.lua: th searches ./?.lua first, so from this folder `require 'cunn'` would
-- find the script instead of the package.)
--
-- Tolerance: an element passes when |device - host| <= TOL * max(1, largest |host| of that
-- tensor), TOL = 1e-4 unless a case says otherwise (float32 on both sides; the device sums in
-- another order). Prints PASS/FAIL per case, SKIP lines for the classes that are not modules to
-- run, then `ok (N modules and criterions, M checks)`.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local TOL = 1e-4
local cases = {}

local function setup()
   local cunn = require 'cunn'
   H.check(type(cunn) == 'table' and rawget(_G, 'cunn') == cunn, 'require \'cunn\' did not load the package')
end

-- Data --------------------------------------------------------------------------------------------

local function R(...) return torch.FloatTensor(...):uniform(-1, 1) end
local function P(...) return torch.FloatTensor(...):uniform(0.1, 1) end
-- Random integers 1..n (class indices), as a LongTensor of the given sizes.
local function I(n, ...) return torch.LongTensor(...):random(1, n) end

-- A host value (tensor or nested table) on the device, as a script makes it: x:cuda() for every
-- tensor (index tensors included, which become CudaTensors as in cutorch); with `long`, index
-- tensors become torch.CudaLongTensor instead.
local function toDevice(x, long)
   if torch.isTensor(x) then
      if long and (torch.type(x) == 'torch.LongTensor') then return x:type('torch.CudaLongTensor') end
      return x:cuda()
   elseif type(x) == 'table' then
      local t = {}
      for k, v in pairs(x) do t[k] = toDevice(v, long) end
      return t
   end
   return x
end

-- Random values shaped like x (a tensor or nested table).
local function randomLike(x)
   if torch.isTensor(x) then
      return torch.FloatTensor():resize(x:size()):uniform(-1, 1)
   elseif type(x) == 'table' then
      local t = {}
      for k, v in pairs(x) do t[k] = randomLike(v) end
      return t
   end
   return x
end

local function cloneValue(x)
   if torch.isTensor(x) then return x:clone() end
   if type(x) == 'table' then
      local t = {}
      for k, v in pairs(x) do t[k] = cloneValue(v) end
      return t
   end
   return x
end

local deviceTypes = { ['torch.CudaTensor'] = true, ['torch.CudaDoubleTensor'] = true,
   ['torch.CudaLongTensor'] = true }

-- dev (device) against host (a tensor, number or nested table of them), within tol.
local function compare(dev, host, tol, what)
   if type(host) == 'number' then
      H.check(type(dev) == 'number', '%s: a number expected, got %s', what, torch.type(dev))
      H.check(math.abs(dev - host) <= tol * math.max(1, math.abs(host)),
         '%s: %.8g on the device, %.8g on the host', what, dev, host)
   elseif torch.isTensor(host) then
      -- Host index bookkeeping (IndexLinear's keys) may stay on the host; values go to the device.
      local hostIndex = torch.type(host) == 'torch.LongTensor' and torch.type(dev) == 'torch.LongTensor'
      H.check(deviceTypes[torch.type(dev)] or hostIndex, '%s: a device tensor expected, got %s', what,
         torch.type(dev))
      H.check(dev:nElement() == host:nElement() and dev:dim() == host:dim(),
         '%s: size %s on the device, %s on the host', what,
         dev:dim() > 0 and table.concat(dev:size():totable(), 'x') or 'empty',
         host:dim() > 0 and table.concat(host:size():totable(), 'x') or 'empty')
      for i = 1, host:dim() do
         H.check(dev:size(i) == host:size(i), '%s: size %d is %d on the device, %d on the host', what, i,
            dev:size(i), host:size(i))
      end
      if host:nElement() == 0 then return end
      local h = host:double():contiguous():view(-1)
      local d = dev:double():contiguous():view(-1)
      local scale = math.max(1, h:clone():abs():max())
      local diff = (d - h):abs()
      local worst, at = diff:max(1)
      if worst[1] ~= worst[1] or worst[1] > tol * scale then
         -- NaN where the host has NaN is agreement; anything else is not.
         for i = 1, h:size(1) do
            local a, b = d[i], h[i]
            local same = (a ~= a and b ~= b) or math.abs(a - b) <= tol * scale
            H.check(same, '%s: element %d is %.8g on the device, %.8g on the host (tolerance %g x %g)',
               what, i, a, b, tol, scale)
         end
      end
   elseif type(host) == 'table' then
      H.check(type(dev) == 'table', '%s: a table expected, got %s', what, torch.type(dev))
      for k, v in pairs(host) do compare(dev[k], v, tol, what .. '[' .. tostring(k) .. ']') end
      for k in pairs(dev) do H.check(host[k] ~= nil, '%s: the device has an extra entry %s', what, tostring(k)) end
   else
      H.check(dev == host, '%s: %s on the device, %s on the host', what, tostring(dev), tostring(host))
   end
end

-- The runs --------------------------------------------------------------------------------------

-- Checks a module: `spec` returns (module, input, options); options:
--   tol        the tolerance (default TOL);
--   eval       run in evaluate mode;
--   prime      run the host module forward once before cloning (modules that draw random state
--              on their first forward, fixed afterwards, carry it to the device with the clone);
--   fields     names of further tensors of the module to compare after the pass;
--   noGradIn   the gradInput is not compared (a module with none);
--   long       index inputs also as CudaLongTensor (a second run);
--   forwardOnly  no backward (a module that has none in the mode checked).
-- With `used`, the host module runs a whole pass before it is cloned, so that its buffers (index
-- buffers included) are converted by :cuda() too, as when a model trained on the host moves.
local function checkModule(name, spec, long, used)
   torch.manualSeed(1)
   local m, x, opt = spec()
   opt = opt or {}
   local tol = opt.tol or TOL
   m:float()
   if opt.eval then m:evaluate() end
   if opt.prime or used then
      local y0 = m:forward(cloneValue(x))
      if used and not opt.forwardOnly then m:backward(cloneValue(x), randomLike(y0)) end
      m:zeroGradParameters()
   end
   local d = m:clone():cuda()
   local dx = toDevice(x, long)
   local y = m:forward(cloneValue(x))
   local dy = d:forward(dx)
   compare(dy, y, tol, name .. ' output')
   if opt.forwardOnly then return d end
   local go = opt.gradOutput or randomLike(y)
   m:zeroGradParameters()
   d:zeroGradParameters()
   local gi = m:backward(cloneValue(x), cloneValue(go))
   local dgi = d:backward(dx, toDevice(go, long))
   if not opt.noGradIn then compare(dgi, gi, tol, name .. ' gradInput') end
   local p, gp = m:parameters()
   local dp, dgp = d:parameters()
   if p then
      H.check(dp and #dp == #p, '%s: %d parameters on the host, %s on the device', name, #p, dp and #dp or 'none')
      for i = 1, #p do
         compare(dgp[i], gp[i], tol, name .. ' gradient of parameter ' .. i)
      end
      m:updateParameters(0.1)
      d:updateParameters(0.1)
      for i = 1, #p do
         compare(dp[i], p[i], tol, name .. ' parameter ' .. i .. ' after updateParameters')
      end
   end
   for _, f in ipairs(opt.fields or {}) do
      compare(d[f], m[f], tol, name .. ' ' .. f)
   end
   return d
end

-- Checks a criterion: `spec` returns (criterion, input, target, options) (tol, long as above).
local function checkCriterion(name, spec, long)
   torch.manualSeed(1)
   local c, x, t, opt = spec()
   opt = opt or {}
   local tol = opt.tol or TOL
   c:float()
   local d = c:clone():cuda()
   local dx, dt = toDevice(x, long), toDevice(t, long)
   local loss = c:forward(cloneValue(x), cloneValue(t))
   local dloss = d:forward(dx, dt)
   compare(dloss, loss, tol, name .. ' loss')
   local gi = c:backward(cloneValue(x), cloneValue(t))
   local dgi = d:backward(dx, dt)
   compare(dgi, gi, tol, name .. ' gradInput')
end

-- The cases, by class --------------------------------------------------------------------------
-- modules[class] = { {variant, spec, options}, ... } (variant '' for the plain case);
-- criterions likewise; skipped[class] = why.

local modules, criterions, skipped = {}, {}, {}
local function M(class, variant, spec, long)
   modules[class] = modules[class] or {}
   table.insert(modules[class], { variant, spec, long })
end
local function C(class, variant, spec, long)
   criterions[class] = criterions[class] or {}
   table.insert(criterions[class], { variant, spec, long })
end

skipped['Module'] = 'the abstract base class (no forward of its own)'
skipped['Criterion'] = 'the abstract base class of criterions'
skipped['Container'] = 'the abstract base class of containers (no forward of its own)'
skipped['StochasticGradient'] = 'a trainer, not a module (checked by the StochasticGradient case)'

-- Element-wise and simple modules.
M('Abs', '', function() return nn.Abs(), R(3, 5) end)
M('AddConstant', '', function() return nn.AddConstant(0.5), R(3, 5) end)
M('AddConstant', 'inplace', function() return nn.AddConstant(0.5, true), R(3, 5) end)
M('Add', '', function() return nn.Add(5), R(3, 5) end)
M('Add', 'scalar', function() return nn.Add(1, true), R(3, 5) end)
M('CAdd', '', function() return nn.CAdd(1, 5), R(3, 5) end)
M('CMul', '', function() return nn.CMul(1, 5), R(3, 5) end)
M('Mul', '', function() return nn.Mul(), R(3, 5) end)
M('MulConstant', '', function() return nn.MulConstant(-2), R(3, 5) end)
M('Clamp', '', function() return nn.Clamp(-0.5, 0.5), R(3, 5) end)
M('HardTanh', '', function() return nn.HardTanh(), R(3, 5):mul(2) end)
M('HardTanh', 'inplace', function() return nn.HardTanh(-0.5, 0.5, true), R(3, 5) end)
M('HardShrink', '', function() return nn.HardShrink(0.3), R(3, 5) end)
M('SoftShrink', '', function() return nn.SoftShrink(0.3), R(3, 5) end)
M('Contiguous', '', function() return nn.Contiguous(), R(5, 3):t() end)
M('Identity', '', function() return nn.Identity(), R(3, 5) end)
M('ELU', '', function() return nn.ELU(0.7), R(3, 5) end)
M('ELU', 'inplace', function() return nn.ELU(1, true), R(3, 5) end)
M('Exp', '', function() return nn.Exp(), R(3, 5) end)
M('Log', '', function() return nn.Log(), P(3, 5) end)
M('Sqrt', '', function() return nn.Sqrt(), P(3, 5) end)
M('Square', '', function() return nn.Square(), R(3, 5) end)
M('Power', '', function() return nn.Power(3), R(3, 5) end)
M('Power', 'fractional', function() return nn.Power(0.5), P(3, 5) end)
M('GradientReversal', '', function() return nn.GradientReversal(0.5), R(3, 5) end)
M('LeakyReLU', '', function() return nn.LeakyReLU(0.1), R(3, 5) end)
M('LeakyReLU', 'inplace', function() return nn.LeakyReLU(0.1, true), R(3, 5) end)
M('PReLU', '', function() return nn.PReLU(), R(3, 5) end)
M('PReLU', 'per-plane', function() return nn.PReLU(4), R(2, 4, 3, 3) end)
M('RReLU', 'evaluate', function() return nn.RReLU(), R(3, 5), { eval = true } end)
M('ReLU', '', function() return nn.ReLU(), R(3, 5) end)
M('ReLU', 'inplace', function() return nn.ReLU(true), R(3, 5) end)
M('ReLU', 'non-contiguous', function() return nn.ReLU(), R(5, 3):t() end)
M('ReLU6', '', function() return nn.ReLU6(), R(3, 5):mul(8) end)
M('Threshold', '', function() return nn.Threshold(0.1, -0.2), R(3, 5) end)
M('Threshold', 'inplace', function() return nn.Threshold(0.1, 0, true), R(2, 3, 4) end)
M('Sigmoid', '', function() return nn.Sigmoid(), R(3, 5) end)
M('Tanh', '', function() return nn.Tanh(), R(3, 5) end)
M('LogSigmoid', '', function() return nn.LogSigmoid(), R(3, 5) end)
M('SoftPlus', '', function() return nn.SoftPlus(2), R(3, 5) end)
M('SoftSign', '', function() return nn.SoftSign(), R(3, 5) end)
M('SoftMax', '', function() return nn.SoftMax(), R(3, 5) end)
M('SoftMax', 'vector', function() return nn.SoftMax(), R(7) end)
M('SoftMin', '', function() return nn.SoftMin(), R(3, 5) end)
M('LogSoftMax', '', function() return nn.LogSoftMax(), R(3, 5) end)
M('LogSoftMax', 'vector', function() return nn.LogSoftMax(), R(7) end)
M('SpatialSoftMax', '', function() return nn.SpatialSoftMax(), R(2, 3, 4, 4) end)
M('SpatialLogSoftMax', '', function() return nn.SpatialLogSoftMax(), R(2, 3, 4, 4) end)
M('Dropout', 'evaluate', function() return nn.Dropout(0.5), R(3, 5), { eval = true } end)
M('Dropout', 'p=0', function() return nn.Dropout(0), R(3, 5) end)
-- (SpatialDropout has no backward in evaluate mode, as in nn.)
M('SpatialDropout', 'evaluate', function()
   return nn.SpatialDropout(0.5), R(2, 3, 4, 4), { eval = true, forwardOnly = true }
end)
M('SpatialDropout', 'p=0', function() return nn.SpatialDropout(0), R(2, 3, 4, 4) end)
M('VolumetricDropout', 'evaluate', function()
   return nn.VolumetricDropout(0.5), R(2, 2, 3, 3, 3), { eval = true, forwardOnly = true }
end)
M('VolumetricDropout', 'p=0', function() return nn.VolumetricDropout(0), R(2, 2, 3, 3, 3) end)
M('WhiteNoise', 'evaluate', function() return nn.WhiteNoise(0, 0.1), R(3, 5), { eval = true } end)
M('ZeroGrad', '', function() return nn.ZeroGrad(), R(3, 5) end)
M('L1Penalty', '', function() return nn.L1Penalty(0.1), R(3, 5) end)
M('Normalize', 'L2', function() return nn.Normalize(2), R(3, 5) end)
M('Normalize', 'L1.5', function() return nn.Normalize(1.5), R(3, 5) end)
M('Normalize', 'Linf', function() return nn.Normalize(math.huge), R(3, 5) end)
M('GatedLinearUnit', '', function() return nn.GatedLinearUnit(), R(3, 6) end)
M('CReLU', '', function() return nn.CReLU(1), R(3, 5) end)
M('Copy', '', function() return nn.Copy(), R(3, 5) end)
M('Copy', 'dontCast', function()
   return nn.Sequential():add(nn.Copy('torch.CudaTensor', 'torch.FloatTensor', false, true)):add(nn.Copy()), R(3, 5)
end)

-- Shape modules.
M('Reshape', '', function() return nn.Reshape(15), R(3, 5) end)
M('Reshape', 'batch', function() return nn.Reshape(3, 5, true), R(2, 15) end)
M('View', '', function() return nn.View(-1), R(3, 5) end)
M('View', 'batch', function() return nn.View(5):setNumInputDims(2), R(2, 1, 5) end)
M('Transpose', '', function() return nn.Transpose({ 1, 2 }, { 2, 3 }), R(2, 3, 4) end)
M('Squeeze', '', function() return nn.Squeeze(), R(3, 1, 5) end)
M('Unsqueeze', '', function() return nn.Unsqueeze(2), R(3, 5) end)
M('Collapse', '', function() return nn.Collapse(2), R(2, 3, 4) end)
M('Narrow', '', function() return nn.Narrow(2, 2, 3), R(3, 5) end)
M('Select', '', function() return nn.Select(2, 3), R(3, 5) end)
M('Replicate', '', function() return nn.Replicate(3, 2), R(3, 5) end)
M('Padding', '', function() return nn.Padding(2, -2, 2, 0.5), R(3, 5) end)
M('Padding', 'inside', function() return nn.Padding(1, 2, 2, 0, 2), R(3, 5) end)
M('Max', '', function() return nn.Max(2), R(3, 5) end)
M('Min', '', function() return nn.Min(1), R(3, 5) end)
M('Sum', '', function() return nn.Sum(2), R(3, 5) end)
M('Sum', 'average', function() return nn.Sum(1, nil, true), R(3, 5) end)
M('Mean', '', function() return nn.Mean(2), R(3, 5) end)
M('Constant', '', function() return nn.Constant(R(4), 2), R(3, 5) end)
M('OneHot', '', function() return nn.OneHot(5), I(5, 3, 2), { noGradIn = true } end, true)
M('PixelShuffle', '', function() return nn.PixelShuffle(2), R(2, 8, 3, 3) end)
M('FeatureLPPooling', '', function() return nn.FeatureLPPooling(2, 1, 2, true), P(3, 6, 4), { tol = 1e-3 } end)
M('Convert', 'bchw-bf', function() return nn.Convert('bchw', 'bf'), R(2, 3, 4, 4) end)
M('Convert', 'bchw-chwb', function() return nn.Convert('bchw', 'chwb'), R(2, 3, 4, 4) end)

-- Layers with parameters.
M('Linear', '', function() return nn.Linear(5, 4), R(3, 5) end)
M('Linear', 'vector', function() return nn.Linear(5, 4), R(5) end)
M('Linear', 'no bias', function() return nn.Linear(5, 4, false), R(3, 5) end)
M('LinearWeightNorm', '', function() return nn.LinearWeightNorm(5, 4), R(3, 5) end)
M('Bilinear', '', function() return nn.Bilinear(5, 4, 3), { R(6, 5), R(6, 4) } end)
M('Cosine', '', function() return nn.Cosine(5, 4), R(3, 5) end)
M('Euclidean', '', function() return nn.Euclidean(5, 4), R(3, 5) end)
M('WeightedEuclidean', '', function() return nn.WeightedEuclidean(5, 4), R(3, 5) end)
M('PartialLinear', '', function()
   local m = nn.PartialLinear(5, 6)
   m:setPartition(torch.LongTensor { 2, 4, 5 })
   return m, R(3, 5)
end)
M('LookupTable', '', function() return nn.LookupTable(10, 4), I(10, 3, 2), { noGradIn = true } end, true)
M('LookupTable', 'maxNorm', function() return nn.LookupTable(10, 4, 0, 1), I(10, 5), { noGradIn = true } end, true)
M('LookupTable', 'padding', function()
   return nn.LookupTable(10, 4, 3), torch.LongTensor { 1, 3, 3, 7 }, { noGradIn = true }
end, true)
M('SparseLinear', '', function()
   local x = torch.FloatTensor { { 2, 0.5 }, { 5, -1 }, { 9, 0.25 } }
   return nn.SparseLinear(10, 4), x, { noGradIn = true }
end)
M('SparseLinear', 'batch', function()
   local x = { torch.FloatTensor { { 2, 0.5 }, { 5, -1 } }, torch.FloatTensor { { 1, 0.3 }, { 10, 2 } } }
   return nn.SparseLinear(10, 4), x, { noGradIn = true }
end)
M('IndexLinear', '', function()
   local m = nn.IndexLinear(10, 4)
   m.weight:uniform(-1, 1)
   return m, { { torch.LongTensor { 1, 4, 7 }, torch.LongTensor { 2, 10 } },
      { torch.FloatTensor { 0.5, -1, 2 }, torch.FloatTensor { 1, -0.5 } } }, { noGradIn = true }
end)
M('Kmeans', '', function()
   local m = nn.Kmeans(3, 5)
   m.weight:uniform(-1, 1)
   return m, R(8, 5), { noGradIn = true, fields = { 'loss' } }
end)
M('BatchNormalization', 'train', function()
   return nn.BatchNormalization(5), R(6, 5), { fields = { 'running_mean', 'running_var' } }
end)
M('BatchNormalization', 'evaluate', function()
   local m = nn.BatchNormalization(5)
   m.running_mean:uniform(-1, 1)
   m.running_var:uniform(0.5, 1.5)
   return m, R(6, 5), { eval = true }
end)
M('BatchNormalization', 'no affine', function()
   return nn.BatchNormalization(5, 1e-5, 0.1, false), R(6, 5), { fields = { 'running_mean', 'running_var' } }
end)
M('SpatialBatchNormalization', 'train', function()
   return nn.SpatialBatchNormalization(3), R(2, 3, 4, 4), { fields = { 'running_mean', 'running_var' } }
end)
M('SpatialBatchNormalization', 'evaluate', function()
   return nn.SpatialBatchNormalization(3), R(2, 3, 4, 4), { eval = true, prime = true }
end)
M('VolumetricBatchNormalization', 'train', function()
   return nn.VolumetricBatchNormalization(2), R(2, 2, 3, 3, 3), { fields = { 'running_mean', 'running_var' } }
end)

-- Tables.
M('CAddTable', '', function() return nn.CAddTable(), { R(3, 5), R(3, 5), R(3, 5) } end)
M('CSubTable', '', function() return nn.CSubTable(), { R(3, 5), R(3, 5) } end)
M('CMulTable', '', function() return nn.CMulTable(), { R(3, 5), R(3, 5) } end)
M('CDivTable', '', function() return nn.CDivTable(), { R(3, 5), P(3, 5) } end)
M('CMaxTable', '', function() return nn.CMaxTable(), { R(3, 5), R(3, 5), R(3, 5) } end)
M('CMinTable', '', function() return nn.CMinTable(), { R(3, 5), R(3, 5) } end)
M('CAddTensorTable', '', function() return nn.CAddTensorTable(), { R(3, 5), { R(3, 5), R(3, 5) } } end)
M('JoinTable', '', function() return nn.JoinTable(2), { R(3, 5), R(3, 2) } end)
M('SplitTable', '', function() return nn.SplitTable(2), R(3, 4) end)
M('SelectTable', '', function() return nn.SelectTable(-1), { R(3, 5), R(2), R(4) } end)
M('NarrowTable', '', function() return nn.NarrowTable(2, 2), { R(3), R(2), R(4), R(1) } end)
M('FlattenTable', '', function() return nn.FlattenTable(), { R(3), { R(2), { R(4) } } } end)
M('MixtureTable', '', function() return nn.MixtureTable(), { P(3, 2), { R(3, 5), R(3, 5) } } end)
M('MixtureTable', 'tensor', function() return nn.MixtureTable(), { P(3, 2), R(3, 2, 5) } end)
M('ZipTable', '', function() return nn.ZipTable(), { { R(2), R(3) }, { R(4), R(5) } } end)
M('ZipTableOneToMany', '', function() return nn.ZipTableOneToMany(), { R(2), { R(3), R(4) } } end)
M('DotProduct', '', function() return nn.DotProduct(), { R(3, 5), R(3, 5) } end)
M('CosineDistance', '', function() return nn.CosineDistance(), { R(3, 5), R(3, 5) } end)
M('PairwiseDistance', '', function() return nn.PairwiseDistance(2), { R(3, 5), R(3, 5) } end)
M('PairwiseDistance', 'L1', function() return nn.PairwiseDistance(1), { R(3, 5), R(3, 5) } end)
M('MM', '', function() return nn.MM(), { R(3, 4), R(4, 2) } end)
M('MM', 'batch transposed', function() return nn.MM(true, true), { R(2, 4, 3), R(2, 5, 4) } end)
M('MV', '', function() return nn.MV(), { R(2, 3, 4), R(2, 4) } end)
M('Index', '', function() return nn.Index(1), { R(5, 3), torch.LongTensor { 2, 5, 2 } }, { noGradIn = true } end,
   true)
M('MaskedSelect', '', function()
   local x = R(3, 5)
   return nn.MaskedSelect(), { x, x:gt(0) }, { noGradIn = true }
end)
M('CriterionTable', '', function() return nn.CriterionTable(nn.MSECriterion()), { R(3, 5), R(3, 5) } end)

-- Containers and decorators.
M('Sequential', '', function()
   return nn.Sequential():add(nn.Linear(5, 4)):add(nn.Tanh()):add(nn.Linear(4, 3)):add(nn.LogSoftMax()), R(3, 5)
end)
M('Concat', '', function() return nn.Concat(2):add(nn.Linear(5, 4)):add(nn.Linear(5, 2)), R(3, 5) end)
M('ConcatTable', '', function() return nn.ConcatTable():add(nn.Linear(5, 4)):add(nn.Identity()), R(3, 5) end)
M('DepthConcat', '', function()
   return nn.DepthConcat(2):add(nn.SpatialConvolution(3, 2, 3, 3)):add(nn.SpatialConvolution(3, 4, 1, 1)), R(2, 3, 5, 5)
end)
M('Parallel', '', function() return nn.Parallel(1, 2):add(nn.Linear(5, 4)):add(nn.Linear(5, 3)), R(2, 3, 5) end)
M('ParallelTable', '', function() return nn.ParallelTable():add(nn.Linear(5, 4)):add(nn.Tanh()), { R(3, 5), R(2) } end)
M('MapTable', '', function() return nn.MapTable(nn.Linear(5, 4)), { R(3, 5), R(2, 5) } end)
M('Decorator', '', function() return nn.Decorator(nn.Linear(5, 4)), R(3, 5) end)
M('Bottle', '', function() return nn.Bottle(nn.Linear(5, 4)), R(2, 3, 5) end)
M('NaN', '', function() return nn.NaN(nn.Linear(5, 4)), R(3, 5) end)
M('Profile', '', function() return nn.Profile(nn.Linear(5, 4), 1e9), R(3, 5) end)
M('WeightNorm', '', function() return nn.WeightNorm(nn.Linear(5, 4)), R(3, 5) end)
M('DontCast', '', function()
   -- The inner module stays on the host; inputs and gradients cross over.
   return nn.Sequential():add(nn.Linear(5, 5)):add(nn.DontCast(nn.Tanh():float(), true)), R(3, 5)
end)

-- Convolutions and pooling: spatial.
M('SpatialConvolution', '', function() return nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1), R(2, 3, 6, 6) end)
M('SpatialConvolution', 'strided', function() return nn.SpatialConvolution(3, 4, 3, 2, 2, 1), R(3, 7, 6) end)
M('SpatialConvolution', 'no bias', function() return nn.SpatialConvolution(3, 4, 3, 3):noBias(), R(2, 3, 5, 5) end)
M('SpatialConvolutionMM', '', function() return nn.SpatialConvolutionMM(3, 4, 3, 3, 2, 2, 1, 1), R(2, 3, 6, 6) end)
M('SpatialConvolutionLocal', '', function() return nn.SpatialConvolutionLocal(3, 4, 5, 5, 3, 3), R(2, 3, 5, 5) end)
M('SpatialConvolutionMap', '', function()
   torch.manualSeed(3)
   return nn.SpatialConvolutionMap(nn.tables.random(3, 4, 2), 3, 3), R(2, 3, 6, 6)
end)
M('SpatialDepthWiseConvolution', '', function() return nn.SpatialDepthWiseConvolution(3, 2, 3, 3, 1, 1, 1, 1), R(2, 3, 5, 5) end)
M('SpatialDilatedConvolution', '', function()
   return nn.SpatialDilatedConvolution(3, 4, 3, 3, 1, 1, 2, 2, 2, 2), R(2, 3, 7, 7)
end)
M('SpatialFullConvolution', '', function()
   return nn.SpatialFullConvolution(3, 4, 3, 3, 2, 2, 1, 1, 1, 1), R(2, 3, 4, 4)
end)
M('SpatialFullConvolutionMap', '', function()
   return nn.SpatialFullConvolutionMap(nn.tables.oneToOne(3), 3, 3, 2, 2), R(2, 3, 4, 4)
end)
M('SpatialMaxPooling', '', function() return nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1), R(2, 3, 7, 7) end)
M('SpatialMaxPooling', 'ceil', function() return nn.SpatialMaxPooling(2, 2, 2, 2):ceil(), R(3, 5, 5) end)
M('SpatialMaxPooling', 'overlapping', function() return nn.SpatialMaxPooling(3, 2, 1, 1), R(2, 2, 5, 6) end)
M('SpatialDilatedMaxPooling', '', function()
   return nn.SpatialDilatedMaxPooling(3, 3, 1, 1, 1, 1, 2, 2), R(2, 3, 7, 7)
end)
M('SpatialAveragePooling', '', function() return nn.SpatialAveragePooling(2, 2, 2, 2), R(2, 3, 6, 6) end)
M('SpatialAveragePooling', 'padded', function()
   return nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):ceil():setCountExcludePad(), R(2, 3, 6, 6)
end)
M('SpatialAdaptiveMaxPooling', '', function() return nn.SpatialAdaptiveMaxPooling(3, 2), R(2, 3, 7, 5) end)
M('SpatialAdaptiveAveragePooling', '', function() return nn.SpatialAdaptiveAveragePooling(3, 2), R(2, 3, 7, 5) end)
M('SpatialFractionalMaxPooling', '', function()
   return nn.SpatialFractionalMaxPooling(2, 2, 4, 4):fixPoolingRegions(), R(2, 3, 7, 7), { prime = true }
end)
M('SpatialLPPooling', '', function() return nn.SpatialLPPooling(3, 2, 2, 2), P(2, 3, 6, 6), { tol = 1e-3 } end)
M('SpatialSubSampling', '', function() return nn.SpatialSubSampling(3, 2, 2, 2, 2), R(2, 3, 6, 6) end)
M('SpatialMaxUnpooling', '', function()
   local pool = nn.SpatialMaxPooling(2, 2, 2, 2)
   return nn.Sequential():add(pool):add(nn.SpatialMaxUnpooling(pool)), R(2, 3, 6, 6)
end)
M('SpatialReflectionPadding', '', function() return nn.SpatialReflectionPadding(1, 2, 2, 1), R(2, 3, 4, 4) end)
M('SpatialReplicationPadding', '', function() return nn.SpatialReplicationPadding(1, 2, 2, 1), R(2, 3, 4, 4) end)
M('SpatialZeroPadding', '', function() return nn.SpatialZeroPadding(1, -1, 2, 0), R(2, 3, 4, 4) end)
M('SpatialCrossMapLRN', '', function() return nn.SpatialCrossMapLRN(3), R(2, 5, 4, 4) end)
M('SpatialContrastiveNormalization', '', function()
   return nn.SpatialContrastiveNormalization(2, torch.FloatTensor(3, 3):fill(1)), R(2, 2, 6, 6), { tol = 1e-3 }
end)
M('SpatialDivisiveNormalization', '', function()
   return nn.SpatialDivisiveNormalization(2, torch.FloatTensor(3):fill(1)), R(2, 2, 6, 6), { tol = 1e-3 }
end)
M('SpatialSubtractiveNormalization', '', function()
   return nn.SpatialSubtractiveNormalization(2, torch.FloatTensor(3, 3):fill(1)), R(2, 2, 6, 6)
end)
M('SpatialUpSamplingNearest', '', function() return nn.SpatialUpSamplingNearest(2), R(2, 3, 3, 3) end)
M('SpatialUpSamplingBilinear', '', function() return nn.SpatialUpSamplingBilinear(2), R(2, 3, 3, 3) end)
M('UpSampling', 'nearest', function() return nn.UpSampling(2), R(2, 3, 3, 3) end)
M('UpSampling', 'trilinear', function() return nn.UpSampling(2, 'linear'), R(1, 2, 2, 3, 3) end)

-- Temporal.
M('TemporalConvolution', '', function() return nn.TemporalConvolution(5, 4, 3, 2), R(2, 7, 5) end)
M('TemporalMaxPooling', '', function() return nn.TemporalMaxPooling(2, 1), R(2, 6, 5) end)
M('TemporalSubSampling', '', function() return nn.TemporalSubSampling(5, 2, 2), R(7, 5) end)
M('TemporalRowConvolution', '', function() return nn.TemporalRowConvolution(5, 3), R(2, 7, 5) end)
M('TemporalDynamicKMaxPooling', '', function() return nn.TemporalDynamicKMaxPooling(2, 0.5), R(2, 6, 5) end)

-- Volumetric.
M('VolumetricConvolution', '', function()
   return nn.VolumetricConvolution(2, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1), R(2, 2, 4, 4, 4)
end)
M('VolumetricDilatedConvolution', '', function()
   return nn.VolumetricDilatedConvolution(2, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2), R(2, 2, 5, 5, 5)
end)
M('VolumetricFullConvolution', '', function()
   return nn.VolumetricFullConvolution(2, 3, 3, 3, 3, 2, 2, 2, 1, 1, 1), R(2, 2, 3, 3, 3)
end)
M('VolumetricMaxPooling', '', function() return nn.VolumetricMaxPooling(2, 2, 2, 2, 2, 2), R(2, 2, 4, 5, 5) end)
M('VolumetricDilatedMaxPooling', '', function()
   return nn.VolumetricDilatedMaxPooling(2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2), R(2, 2, 5, 5, 5)
end)
M('VolumetricAveragePooling', '', function() return nn.VolumetricAveragePooling(2, 2, 2, 2, 2, 2), R(2, 2, 4, 4, 4) end)
M('VolumetricFractionalMaxPooling', '', function()
   return nn.VolumetricFractionalMaxPooling(2, 2, 2, 3, 3, 3):fixPoolingRegions(), R(2, 2, 5, 5, 5), { prime = true }
end)
M('VolumetricMaxUnpooling', '', function()
   local pool = nn.VolumetricMaxPooling(2, 2, 2, 2, 2, 2)
   return nn.Sequential():add(pool):add(nn.VolumetricMaxUnpooling(pool)), R(2, 2, 4, 4, 4)
end)
M('VolumetricReplicationPadding', '', function()
   return nn.VolumetricReplicationPadding(1, 0, 2, 1, 0, 1), R(2, 2, 3, 3, 3)
end)

-- Criterions.
C('MSECriterion', '', function() return nn.MSECriterion(), R(3, 5), R(3, 5) end)
C('MSECriterion', 'sum', function() return nn.MSECriterion(false), R(3, 5), R(3, 5) end)
C('AbsCriterion', '', function() return nn.AbsCriterion(), R(3, 5), R(3, 5) end)
C('SmoothL1Criterion', '', function() return nn.SmoothL1Criterion(), R(3, 5):mul(2), R(3, 5) end)
C('WeightedMSECriterion', '', function() return nn.WeightedMSECriterion(P(3, 5)), R(3, 5), R(3, 5) end)
C('BCECriterion', '', function() return nn.BCECriterion(), P(3, 5):mul(0.9), I(2, 3, 5):add(-1):float() end)
C('BCECriterion', 'weighted', function()
   return nn.BCECriterion(P(5)), P(3, 5):mul(0.9), I(2, 3, 5):add(-1):float()
end)
C('ClassNLLCriterion', '', function() return nn.ClassNLLCriterion(), R(4, 5), I(5, 4) end, true)
C('ClassNLLCriterion', 'weighted', function() return nn.ClassNLLCriterion(P(5)), R(4, 5), I(5, 4) end, true)
C('ClassNLLCriterion', 'vector', function() return nn.ClassNLLCriterion(), R(5), 3 end)
C('ClassNLLCriterion', 'ignoreIndex', function()
   local c = nn.ClassNLLCriterion(nil, true, 2)
   return c, R(4, 5), torch.LongTensor { 1, 2, 3, 2 }
end, true)
C('CrossEntropyCriterion', '', function() return nn.CrossEntropyCriterion(), R(4, 5), I(5, 4) end, true)
C('SpatialClassNLLCriterion', '', function() return nn.SpatialClassNLLCriterion(), R(2, 4, 3, 3), I(4, 2, 3, 3) end,
   true)
C('ClassSimplexCriterion', '', function() return nn.ClassSimplexCriterion(5), R(4, 5), I(5, 4) end, true)
C('DistKLDivCriterion', '', function() return nn.DistKLDivCriterion(), R(3, 5), P(3, 5) end)
C('DistanceRatioCriterion', '', function() return nn.DistanceRatioCriterion(), { P(6), P(6) } end)
C('HingeEmbeddingCriterion', '', function()
   return nn.HingeEmbeddingCriterion(0.5), R(6), torch.FloatTensor { 1, -1, 1, -1, -1, 1 }
end)
C('L1HingeEmbeddingCriterion', '', function() return nn.L1HingeEmbeddingCriterion(2), { R(5), R(5) }, -1 end)
C('CosineEmbeddingCriterion', '', function()
   return nn.CosineEmbeddingCriterion(0.1), { R(4, 5), R(4, 5) }, torch.FloatTensor { 1, -1, -1, 1 }
end)
C('MarginCriterion', '', function() return nn.MarginCriterion(0.5), R(6), torch.FloatTensor { 1, -1, 1, -1, -1, 1 } end)
C('SoftMarginCriterion', '', function() return nn.SoftMarginCriterion(), R(6), torch.FloatTensor { 1, -1, 1, -1, -1, 1 } end)
C('MarginRankingCriterion', '', function()
   return nn.MarginRankingCriterion(0.2), { R(5), R(5) }, torch.FloatTensor { 1, -1, 1, 1, -1 }
end)
C('MultiMarginCriterion', '', function() return nn.MultiMarginCriterion(), R(4, 5), I(5, 4) end, true)
C('MultiMarginCriterion', 'p=2 weighted', function()
   return nn.MultiMarginCriterion(2, P(5), 0.5), R(4, 5), I(5, 4)
end, true)
C('MultiLabelMarginCriterion', '', function()
   return nn.MultiLabelMarginCriterion(), R(2, 4), torch.LongTensor { { 3, 1, 0, 0 }, { 4, 0, 0, 0 } }
end, true)
C('MultiLabelSoftMarginCriterion', '', function()
   return nn.MultiLabelSoftMarginCriterion(), R(3, 5), I(2, 3, 5):add(-1):float()
end)
C('L1Cost', '', function() return nn.L1Cost(), R(3, 5) end)
C('SpatialAutoCropMSECriterion', '', function() return nn.SpatialAutoCropMSECriterion(), R(2, 3, 4, 4), R(2, 3, 6, 5) end)
C('MultiCriterion', '', function()
   return nn.MultiCriterion():add(nn.MSECriterion()):add(nn.AbsCriterion(), 0.5), R(3, 5), R(3, 5)
end)
C('ParallelCriterion', '', function()
   return nn.ParallelCriterion():add(nn.MSECriterion()):add(nn.ClassNLLCriterion(), 0.5), { R(3, 5), R(3, 4) },
      { R(3, 5), I(4, 3) }
end, true)
C('ModuleCriterion', '', function()
   return nn.ModuleCriterion(nn.ClassNLLCriterion(), nn.LogSoftMax()), R(3, 5), I(5, 3)
end, true)

-- Registering the cases -------------------------------------------------------------------------

local counted = {}
local function register(kind, list, check)
   for class, variants in pairs(list) do
      for _, v in ipairs(variants) do
         local label = class .. (v[1] ~= '' and ('.' .. v[1]) or '')
         cases[label] = function()
            setup()
            check(label, v[2])
            if v[3] then check(label .. ' (CudaLongTensor indices)', v[2], true) end
            if kind == 'module' then check(label .. ' (converted after a host pass)', v[2], false, true) end
         end
         counted[class] = kind
      end
   end
end
register('module', modules, checkModule)
register('criterion', criterions, checkCriterion)

-- Every nn class has a case (or a reason to have none).
function cases.everyClassIsChecked()
   setup()
   local missing = {}
   for name, v in pairs(nn) do
      if type(v) == 'table' and torch.getmetatable('nn.' .. name) and not counted[name] and not skipped[name] then
         missing[#missing + 1] = name
      end
   end
   table.sort(missing)
   H.check(#missing == 0, 'nn classes without a cunn check: %s', table.concat(missing, ', '))
end

-- The model's criterion, kept as a field, converts with the model; the pair trains on the device
-- as on the host.
function cases.modelWithCriterionField()
   setup()
   torch.manualSeed(1)
   local model = nn.Sequential():add(nn.SpatialConvolution(1, 4, 3, 3)):add(nn.ReLU())
      :add(nn.SpatialMaxPooling(2, 2, 2, 2)):add(nn.View(4 * 3 * 3)):add(nn.Linear(36, 5)):add(nn.LogSoftMax())
   model.criterion = nn.ClassNLLCriterion()
   model:float()
   local dev = model:clone():cuda()
   H.eq(torch.type(dev.criterion.output ~= nil and dev.criterion), 'nn.ClassNLLCriterion', 'criterion class')
   H.eq(torch.type(dev.modules[1].weight), 'torch.CudaTensor', 'weight type')
   local x, t = R(4, 1, 8, 8), I(5, 4)
   local dx, dt = x:cuda(), t:cuda()
   for step = 1, 3 do
      for _, pair in ipairs { { model, x, t }, { dev, dx, dt } } do
         local m, input, target = pair[1], pair[2], pair[3]
         m:zeroGradParameters()
         local out = m:forward(input)
         m.criterion:forward(out, target)
         m:backward(input, m.criterion:backward(out, target))
         m:updateParameters(0.05)
      end
      compare(dev.criterion.output, model.criterion.output, TOL, 'loss at step ' .. step)
   end
   local p = model:parameters()
   local dp = dev:parameters()
   for i = 1, #p do compare(dp[i], p[i], TOL, 'parameter ' .. i) end
end

-- getParameters on the device: one flat device tensor, the modules' parameters views of it, and
-- training through the flat tensors as on the host.
function cases.getParametersOnTheDevice()
   setup()
   torch.manualSeed(1)
   local model = nn.Sequential():add(nn.Linear(5, 4)):add(nn.Tanh()):add(nn.Linear(4, 3))
   model:float()
   local dev = model:clone():cuda()
   local w, gw = model:getParameters()
   local dw, dgw = dev:getParameters()
   H.eq(torch.type(dw), 'torch.CudaTensor', 'flat parameters')
   H.eq(torch.type(dgw), 'torch.CudaTensor', 'flat gradients')
   H.eq(dw:nElement(), 5 * 4 + 4 + 4 * 3 + 3, 'number of parameters')
   compare(dw, w, 0, 'flat parameters')
   -- The modules' tensors are views of the flat one.
   H.check(torch.pointer(dev.modules[1].weight:storage()) == torch.pointer(dw:storage()), 'weight is not a view')
   H.check(torch.pointer(dev.modules[3].gradBias:storage()) == torch.pointer(dgw:storage()), 'gradBias is not a view')
   local crit = nn.MSECriterion():float()
   local dcrit = crit:clone():cuda()
   local x, t = R(6, 5), R(6, 3)
   local dx, dt = x:cuda(), t:cuda()
   for _ = 1, 3 do
      gw:zero()
      dgw:zero()
      model:backward(x, crit:backward(model:forward(x), t))
      dev:backward(dx, dcrit:backward(dev:forward(dx), dt))
      compare(dgw, gw, TOL, 'flat gradients')
      w:add(-0.1, gw)
      dw:add(-0.1, dgw)
   end
   compare(dev.modules[1].weight, model.modules[1].weight, TOL, 'weight after the steps')
end

-- torch.save/torch.load of a device model: it comes back on the device and computes the same.
function cases.saveAndLoadADeviceModel()
   setup()
   torch.manualSeed(1)
   local model = nn.Sequential():add(nn.SpatialConvolution(2, 3, 3, 3)):add(nn.SpatialBatchNormalization(3))
      :add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2)):add(nn.View(-1):setNumInputDims(3)):add(nn.Linear(12, 4))
   model.criterion = nn.CrossEntropyCriterion()
   model:cuda()
   local x = R(2, 2, 6, 6):cuda()
   model:evaluate()
   local y = model:forward(x):clone()
   local file = os.tmpname()
   torch.save(file, model)
   local back = torch.load(file)
   os.remove(file)
   H.eq(torch.type(back.modules[1].weight), 'torch.CudaTensor', 'weight after loading')
   H.eq(torch.type(back.criterion), 'nn.CrossEntropyCriterion', 'criterion after loading')
   compare(back:forward(x), y:float(), 0, 'output after loading')
end

-- nn.StochasticGradient on a device dataset trains as on the host.
function cases.StochasticGradient()
   setup()
   torch.manualSeed(1)
   local model = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 1))
   model:float()
   local dev = model:clone():cuda()
   local function dataset(cuda)
      local d = {}
      torch.manualSeed(2)
      for i = 1, 6 do
         local x, y = R(3), R(1)
         d[i] = cuda and { x:cuda(), y:cuda() } or { x, y }
      end
      function d:size() return 6 end
      return d
   end
   for _, pair in ipairs { { model, false }, { dev, true } } do
      local trainer = nn.StochasticGradient(pair[1], nn.MSECriterion():type(pair[1]:type()))
      trainer.maxIteration = 2
      trainer.verbose = false
      trainer.shuffleIndices = false
      trainer:train(dataset(pair[2]))
   end
   local p, dp = model:parameters(), dev:parameters()
   for i = 1, #p do compare(dp[i], p[i], TOL, 'parameter ' .. i) end
end

-- The window passes run on device kernels (cutorch._nn), not on the tensor-method fallbacks.
function cases.deviceKernelsAreUsed()
   setup()
   local kernels = require 'nn.engine.kernels'
   for _, ty in ipairs { 'torch.CudaTensor', 'torch.CudaDoubleTensor' } do
      local t = torch.getmetatable(ty).new()
      for _, name in ipairs { 'unfold', 'fold', 'maxPool', 'maxPoolBackward' } do
         H.check(kernels.has(t, name), 'no device kernel %s for %s', name, ty)
      end
   end
   local m = nn.SpatialMaxPooling(2, 2):cuda()
   m:forward(R(1, 2, 4, 4):cuda())
   H.eq(torch.type(m.indices), 'torch.CudaLongTensor', 'max pooling indices')
end

-- Running -----------------------------------------------------------------------------------------

-- What the checks cover: the classes not run (and why), and the count.
function cases.coverage()
   setup()
   local names = {}
   for name in pairs(skipped) do names[#names + 1] = name end
   table.sort(names)
   for _, name in ipairs(names) do print(string.format('cunn: nn.%s not run: %s', name, skipped[name])) end
   local nm, nc, nv = 0, 0, 0
   for _, kind in pairs(counted) do
      if kind == 'module' then nm = nm + 1 else nc = nc + 1 end
   end
   for _, list in ipairs { modules, criterions } do
      for _, variants in pairs(list) do nv = nv + #variants end
   end
   print(string.format('cunn: %d modules and %d criterions checked against the host (%d cases)', nm, nc, nv))
end

local why = H.noGpu()
if why then
   print('SKIP cunn GPU checks: ' .. why)
   os.exit(0)
end
local pattern = ...
local selected, total = {}, 0
for name, f in pairs(cases) do
   if not pattern or ('cunn.' .. name):find(pattern) then
      selected[name] = f
      total = total + 1
   end
end
local failed = H.run(selected, 'cunn')
if failed > 0 then
   print(string.format('%d of %d checks failed', failed, total))
   os.exit(1)
end
print(string.format('ok (%d checks)', total))
