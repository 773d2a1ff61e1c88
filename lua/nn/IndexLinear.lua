-- nn.IndexLinear(inputSize, outputSize[, doGradInput, keysOffset, weight, bias, normalize]): a
-- Linear layer for very sparse, very wide inputs given as keys and values:
--   {keys, values}                      one sample (LongTensor and Tensor of the same length);
--   {{keys1, keys2, ...}, {values1, ...}}  a batch;
--   {keys, values, sizes}               a batch flattened (sizes: the length of each sample).
-- y = bias + sum over the sample's keys k of value_k * weight[k] (weight is inputSize x outputSize,
-- the transpose of nn.Linear's; keysOffset shifts the keys). The weight gradient is kept dense per
-- key (running.gradWeight, one buffer per accumulation until zeroGradParameters) instead of as a
-- huge gradWeight, and updateParameters applies it to the keys seen.
--
-- With normalize, each weight row starts with 4 extra columns: the largest |value| seen for the
-- key (updated in training), its inverse, a learning-rate scale and a per-key bias; values are
-- divided by that maximum (clamped to +-1) and shifted by the per-key bias, which is learnt too.

local IndexLinear, parent = torch.class('nn.IndexLinear', 'nn.Module')

function IndexLinear:__init(inputSize, outputSize, doGradInput, keysOffset, weight, bias, normalize)
   parent.__init(self)
   self.normalize = normalize and 4 or 0
   -- a weight can be passed in, to share it without allocating a (possibly huge) one first
   self.weight = weight or torch.Tensor(inputSize, outputSize + self.normalize):zero()
   self.bias = bias or torch.Tensor(outputSize):zero()
   self.inputSize = self.weight and self.weight:size(1) or inputSize
   self.outputSize = self.weight and (self.weight:size(2) - self.normalize) or outputSize
   self.gradWeight = torch.Tensor()
   self.gradBias = torch.Tensor(self.outputSize):zero()
   self.gradWeightBuffer = torch.Tensor()
   self.valuesBuffer = torch.Tensor()
   self.normalizedValues = torch.Tensor()
   -- the keys and dense key gradients of each accumulation since the last zeroGradParameters
   self.running = { cumSumSizes = {}, keys = {}, gradWeight = {}, counter = 1 }
   self.sizesCache = {}
   self.cumSumSizesCache = {}
   self.weightDecay = 0
   self.doGradInput = doGradInput or false
   self.offset = keysOffset and keysOffset - 1 or -1
end

function IndexLinear:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:size(2))
   end
   self.weight:uniform(-stdv, stdv)
   self.bias:uniform(-stdv, stdv):mul(0.000001)
   if self.normalize and self.normalize > 0 then
      self.weight:narrow(2, 1, self.normalize):zero()
   end
end

-- The input's keys, values (tables of tensors, or flat tensors) and sizes (flat form only).
function IndexLinear:reshapeInput(input)
   assert(torch.type(input) == 'table', 'nn.IndexLinear: the input must be a table')
   local n = #input
   assert(n == 2 or n == 3, 'nn.IndexLinear: the input must be {keys, values} or {keys, values, sizes}')
   if n == 3 then
      local keys, values = input[1], input[2]
      local sizes = torch.isTensor(input[3]) and input[3] or keys.new { input[3] }
      assert(keys:nElement() == values:nElement(), 'nn.IndexLinear: keys and values must be of the same size')
      assert(keys:dim() == 1, 'nn.IndexLinear: keys and values must be 1-D')
      self.isFlat = true
      self.noBatch = false
      return keys, values, sizes
   end
   local keys, values = input[1], input[2]
   local lkeys, lvalues
   if torch.type(keys) == 'table' and torch.type(values) == 'table' then
      lkeys, lvalues = keys, values
      self.noBatch = false
   elseif torch.isTensor(keys) and torch.isTensor(values) then
      lkeys, lvalues = { keys }, { values }
      self.noBatch = true
   else
      error('nn.IndexLinear: wrong input format')
   end
   self.isFlat = false
   for i = 1, #lkeys do
      assert(lvalues[i]:dim() == 1 and lkeys[i]:dim() == 1, 'nn.IndexLinear: keys and values must be 1-D')
   end
   return lkeys, lvalues
end

function IndexLinear:longTensor(...)
   return torch.LongTensor(...)
end

-- Sets self.keys, self.values (flat), self.sizes and self.cumSumSizes from the input.
function IndexLinear:flattenInputs(input)
   local lkeys, lvalues, sizes = self:reshapeInput(input)
   local counter = self.running.counter
   self.running.keys[counter] = self.running.keys[counter] or self:longTensor()
   self.keys = self.running.keys[counter]
   if self.isFlat then
      self.values = self.values or lvalues.new()
      self.keys:resize(lkeys:size()):copy(lkeys)
      self.values:resize(lvalues:size()):copy(lvalues)
      self.sizes = sizes:long()
   else
      self.values = self.values or lvalues[1].new()
      self.lkeys, self.lvalues = lkeys, lvalues
      local batchSize = #lkeys
      self.sizesCache[1] = self.sizesCache[1] or torch.LongTensor(batchSize)
      self.sizes = self.sizesCache[1]:resize(batchSize)
      for i = 1, batchSize do self.sizes[i] = lkeys[i]:size(1) end
      -- Keys stay a host LongTensor whatever the input's type (a device input's keys, CudaTensor
      -- or CudaLongTensor, come over once: the per-key bookkeeping is done on the host).
      local hostKeys = {}
      for i = 1, batchSize do
         hostKeys[i] = torch.type(lkeys[i]) == 'torch.LongTensor' and lkeys[i] or lkeys[i]:long()
      end
      self.keys:cat(hostKeys, 1)
      self.values:cat(lvalues, 1)
   end
   self.cumSumSizesCache[1] = self.cumSumSizesCache[1] or torch.LongTensor()
   self.cumSumSizes = self.cumSumSizesCache[1]
   self.cumSumSizes:resize(self.sizes:size(1)):copy(self.sizes:cumsum(1))
   self.running.cumSumSizes[counter] = self.cumSumSizes
end

-- For each key, the batch sample it belongs to (LongTensor).
local function sampleOfKeys(sizes, nnz)
   local samples = torch.LongTensor(nnz)
   local at = 1
   for j = 1, sizes:size(1) do
      local n = sizes[j]
      if n > 0 then samples:narrow(1, at, n):fill(j) end
      at = at + n
   end
   return samples
end

-- The weight rows of `keys` (1-based row numbers).
local function rowsOf(self, keys)
   return keys:clone():add(self.offset + 1)
end

-- Keys are processed in chunks so that the nnz x outputSize products stay small.
local CHUNK_ELEMENTS = 2 ^ 22

-- output[sample] += value * weight[row] over the keys (`values` normalised or not).
local function accumulateRows(output, weightCols, rows, samples, values)
   local nnz, O = rows:size(1), weightCols:size(2)
   local chunk = math.max(1, math.floor(CHUNK_ELEMENTS / math.max(O, 1)))
   for first = 1, nnz, chunk do
      local n = math.min(chunk, nnz - first + 1)
      local contrib = weightCols:index(1, rows:narrow(1, first, n))
      contrib:cmul(values:narrow(1, first, n):contiguous():view(n, 1):expand(n, O))
      output:indexAdd(1, samples:narrow(1, first, n), contrib)
   end
end

-- Normalised values, updating the per-key maxima in training (in key order, as they are seen).
local function normalizedValues(self, rows)
   local w = self.weight
   local nv = self.normalizedValues:resize(rows:size(1))
   for i = 1, rows:size(1) do
      local r, v = rows[i], self.values[i]
      local absVal = math.abs(v)
      if self.train then
         if absVal > w[r][1] then
            w[r][1] = absVal
            w[r][2] = 1 / absVal
         end
         w[r][3] = 1
      end
      local x
      if absVal > w[r][1] then
         x = v > 0 and 1 or (v < 0 and -1 or 0)
      else
         x = v * w[r][2]
      end
      nv[i] = x + w[r][4]
   end
   return nv
end

function IndexLinear:updateOutput(input)
   self:flattenInputs(input)
   local B = self.sizes:size(1)
   local rows = rowsOf(self, self.keys)
   local samples = sampleOfKeys(self.sizes, rows:size(1))
   self.output:resize(B, self.outputSize):copy(self.bias:view(1, self.outputSize):expand(B, self.outputSize))
   local values = self.values
   if self.normalize > 0 then values = normalizedValues(self, rows) end
   accumulateRows(self.output, self.weight:narrow(2, self.normalize + 1, self.outputSize), rows, samples, values)
   if self.noBatch then
      self.output:resize(self.outputSize)
   end
   return self.output
end

-- gradOutput as B x outputSize.
local function batchGrad(self, gradOutput)
   return gradOutput:contiguous():view(self.sizes:size(1), self.outputSize)
end

function IndexLinear:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local counter = self.running.counter
   local g = batchGrad(self, gradOutput)
   local samples = sampleOfKeys(self.sizes, self.keys:size(1))
   local nnz, O = self.keys:size(1), self.outputSize
   local values = self.normalize > 0 and self.normalizedValues or self.values
   local perKey = g:index(1, samples) -- nnz x O
   local gw = self.running.gradWeight[counter] or self.values.new()
   self.running.gradWeight[counter] = gw
   if self.normalize > 0 then
      -- [gradOutput * scale, value * gradOutput * scale]: the per-key bias's and the weights' parts
      gw:resize(nnz, 2 * O)
      gw:narrow(2, 1, O):copy(perKey):mul(scale)
      gw:narrow(2, O + 1, O):copy(perKey):cmul(values:contiguous():view(nnz, 1):expand(nnz, O)):mul(scale)
   else
      gw:resize(nnz, O):copy(perKey):cmul(values:contiguous():view(nnz, 1):expand(nnz, O)):mul(scale)
   end
   self.gradBias:add(scale, g:sum(1):view(O))
   self.running.counter = counter + 1
end

-- Applies `grads` (one row per key of `rows`) to the weight rows with learning rate lr (and the
-- sparse weight decay, once per occurrence of a key).
local function applyRows(self, rows, grads, lr)
   local O = self.outputSize
   local wd = self.weightDecay or 0
   if self.normalize == 0 and wd == 0 then
      self.weight:indexAdd(1, rows, grads:mul(-lr))
      return
   end
   -- in order, one key at a time: the updates of a key depend on the ones before
   local w = self.weight
   for j = 1, rows:size(1) do
      local row = w[rows[j]]
      local lrj, wdj = lr, wd
      local g
      if self.normalize > 0 then
         lrj = lr * row[3]
         wdj = wd * row[3]
         local weights = row:narrow(1, self.normalize + 1, O)
         -- per-key bias: sum_k gradOutput_k * w_k
         row[4] = row[4] - grads[j]:narrow(1, 1, O):dot(weights) * lrj
         g = grads[j]:narrow(1, O + 1, O)
      else
         g = grads[j]
      end
      local weights = row:narrow(1, self.normalize + 1, O)
      if wdj ~= 0 then weights:add(-wdj, weights) end
      weights:add(-lrj, g)
   end
end

function IndexLinear:updateParameters(lr)
   assert(lr, 'nn.IndexLinear: a learning rate is expected')
   local counter = self.running.counter
   if counter <= 1 then return end
   self.bias:add(-lr, self.gradBias)
   local keys, grads
   if counter == 2 then
      keys, grads = self.running.keys[1], self.running.gradWeight[1]
   else
      local lkeys, lgrads = {}, {}
      for i = 1, counter - 1 do
         lkeys[i] = self.running.keys[i]
         lgrads[i] = self.running.gradWeight[i]
      end
      self.updateKeysBuffer = self.updateKeysBuffer or self:longTensor()
      keys = self.updateKeysBuffer:cat(lkeys, 1)
      grads = self.gradWeightBuffer:cat(lgrads, 1)
   end
   self.updateKeys = keys
   self.gradWeight = grads
   applyRows(self, rowsOf(self, keys), grads:clone(), lr)
end

-- Updates the weights straight from the gradient (`scale` is the learning rate).
function IndexLinear:accUpdateGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local g = batchGrad(self, gradOutput)
   local O = self.outputSize
   local samples = sampleOfKeys(self.sizes, self.keys:size(1))
   local nnz = self.keys:size(1)
   local values = self.normalize > 0 and self.normalizedValues or self.values
   local perKey = g:index(1, samples)
   local grads
   if self.normalize > 0 then
      grads = perKey.new(nnz, 2 * O)
      grads:narrow(2, 1, O):copy(perKey)
      grads:narrow(2, O + 1, O):copy(perKey):cmul(values:contiguous():view(nnz, 1):expand(nnz, O))
   else
      grads = perKey:cmul(values:contiguous():view(nnz, 1):expand(nnz, O))
   end
   self.bias:add(-scale, g:sum(1):view(O))
   applyRows(self, rowsOf(self, self.keys), grads, scale)
end

function IndexLinear:updateGradInput(input, gradOutput)
   self.gradInput = {}
   if self.doGradInput and self.normalize > 0 then
      error('nn.IndexLinear: updateGradInput is not implemented in max-normalize mode')
   end
   local ini = self.weight:size(1)
   if self.doGradInput then
      local g = gradOutput:dim() == 1 and gradOutput:view(1, -1) or gradOutput
      local gi = g.new(g:size(1), ini):mm(g, self.weight:t())
      local indices = torch.range(1, ini):long()
      if self.isFlat then
         self.gradInput[1] = torch.repeatTensor(indices, gi:size(1), 1)
         self.gradInput[2] = gi
      else
         self.gradInput[1], self.gradInput[2] = {}, {}
         for i = 1, gi:size(1) do
            self.gradInput[1][i] = indices:clone()
            self.gradInput[2][i] = gi[i]:clone()
         end
      end
   end
   if self.noBatch then
      if self.isFlat then
         self.gradInput = { self.gradInput[1]:resize(ini), self.gradInput[2]:resize(ini) }
      else
         self.gradInput = { self.gradInput[1][1], self.gradInput[2][1] }
      end
   end
   return self.gradInput
end

-- The weight gradient is dense per key: zeroing forgets the accumulations.
function IndexLinear:zeroGradParameters()
   self.gradBias:zero()
   self.running.counter = 1
end

function IndexLinear:parameters()
   return { self.weight, self.bias }, { self.running, self.gradBias }
end

-- The key bookkeeping (keys, sample sizes and their sums) is host LongTensors whatever the
-- module's type: :type() converts the rest and brings those back.
function IndexLinear:type(type, tensorCache)
   parent.type(self, type, tensorCache)
   if not type then return self._type end
   local function long(t)
      if torch.isTensor(t) and torch.type(t) ~= 'torch.LongTensor' then return t:long() end
      return t
   end
   for _, list in ipairs { self.running.keys, self.running.cumSumSizes, self.sizesCache, self.cumSumSizesCache } do
      for k, t in pairs(list) do list[k] = long(t) end
   end
   for _, name in ipairs { 'keys', 'sizes', 'cumSumSizes', 'updateKeysBuffer', 'updateKeys' } do
      self[name] = long(self[name])
   end
   return self
end

function IndexLinear:clearState()
   self.running.keys = {}
   self.running.gradWeight = {}
   self.keys = nil
   self.zerokeys = nil
   self.updateKeys = nil
   self.values = nil
   self.sizes = nil
   self.lkeys = {}
   self.lvalues = {}
   self.gradWeightBuffer = self.gradWeightBuffer.new()
   self.valuesBuffer = self.valuesBuffer.new()
   self.updateKeysBuffer = nil
   return parent.clearState(self)
end

return IndexLinear
