-- nn.SparseLinear(inputSize, outputSize[, doGradInput]): a Linear layer on sparse inputs. One
-- sample is an nnz x 2 tensor of (index, value) rows; a batch is a table of them (output
-- batch x outputSize), or, in the legacy form, a batch x nnz x 2 tensor. weight is
-- outputSize x inputSize as in nn.Linear. With doGradInput, gradInput gives the (dense) gradient of
-- every input index in the same (index, value) form.
--
-- After one accumulation from one input, updateParameters and zeroGradParameters touch only the
-- weight columns that input used (the rest of gradWeight is zero); after several they fall back
-- to the dense ones.

local SparseLinear, parent = torch.class('nn.SparseLinear', 'nn.Module')

-- sparseUpdate states: no accumulation since the last zeroing, one (its input kept in
-- lastInput), several.
local NO_LAST_INPUT, ONE_LAST_INPUT, ACC_MULTIPLE_TIMES = 0, 1, 2

function SparseLinear:__init(inputSize, outputSize, doGradInput)
   parent.__init(self)
   self.weightDecay = 0
   self.doGradInput = doGradInput or false
   assert(type(self.doGradInput) == 'boolean', 'nn.SparseLinear: doGradInput must be a boolean')
   self.weight = torch.Tensor(outputSize, inputSize):zero()
   self.bias = torch.Tensor(outputSize):zero()
   self.gradWeight = torch.Tensor(outputSize, inputSize):zero()
   self.gradBias = torch.Tensor(outputSize):zero()
   self.lastInput = nil
   self.sparseUpdate = NO_LAST_INPUT
   self.formatted_input = nil
   self.gradInput = {}
   self.output:resize(outputSize)
   self:reset()
end

function SparseLinear:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:size(2))
   end
   self.weight:uniform(-stdv, stdv)
   self.bias:uniform(-stdv, stdv):mul(0.000001)
end

-- The input as a table of samples, whether it was a batch, and whether it is the legacy 3-D form.
function SparseLinear:reshapeInput(input)
   if torch.type(input) == 'table' then
      return input, true, false
   elseif input:dim() == 2 then
      return { input }, false, false
   end
   return input, true, true
end

-- Every nonzero of the batch as one row (sample, index, value): what the kernels below work on.
local function formatInput(self, samples)
   local total = 0
   for _, s in ipairs(samples) do total = total + s:size(1) end
   self.formatted_input = self.formatted_input or samples[1].new()
   self.formatted_input:resize(total, 3)
   local at = 1
   for i, s in ipairs(samples) do
      local rows = self.formatted_input:narrow(1, at, s:size(1))
      rows:select(2, 1):fill(i)
      rows:narrow(2, 2, 2):copy(s)
      at = at + s:size(1)
   end
   return self.formatted_input
end

-- output[sample] += value * weight[:, index] for every row of `rows` (sample, index, value).
local function sparseForward(output, weight, rows)
   local samples = rows:select(2, 1):long()
   local indices = rows:select(2, 2):long()
   local values = rows:select(2, 3)
   local n, out = rows:size(1), weight:size(1)
   -- columns of weight, one per nonzero, scaled by their values: nnz x outputSize
   local contrib = weight:index(2, indices):t():cmul(values:contiguous():view(n, 1):expand(n, out))
   output:indexAdd(1, samples, contrib)
end

-- gradWeight[:, index] += scale * value * gradOutput[sample]; gradBias += scale * sum(gradOutput).
local function sparseAccGrad(gradWeight, gradBias, gradOutput, rows, scale)
   local samples = rows:select(2, 1):long()
   local indices = rows:select(2, 2):long()
   local values = rows:select(2, 3)
   local n, out = rows:size(1), gradWeight:size(1)
   local contrib = gradOutput:index(1, samples):cmul(values:contiguous():view(n, 1):expand(n, out)):mul(scale)
   gradWeight:indexAdd(2, indices, contrib:t())
   gradBias:add(scale, gradOutput:sum(1):view(out))
end

-- The legacy batch (B x nnz x 2) as (sample, index, value) rows.
local function legacyRows(input)
   local B, nnz = input:size(1), input:size(2)
   local rows = input.new(B * nnz, 3)
   for b = 1, B do
      local r = rows:narrow(1, (b - 1) * nnz + 1, nnz)
      r:select(2, 1):fill(b)
      r:narrow(2, 2, 2):copy(input[b])
   end
   return rows
end

function SparseLinear:updateOutput(input)
   if self.sparseUpdate == ONE_LAST_INPUT then
      self.sparseUpdate = ACC_MULTIPLE_TIMES
   end
   local samples, batchMode, legacyMode = self:reshapeInput(input)
   self.legacyMode = legacyMode
   local nOut = self.weight:size(1)
   if legacyMode then
      self.formatted_input = legacyRows(samples)
      self.output:resize(samples:size(1), nOut)
   else
      if #samples == 0 then
         self.output:resize(nOut):copy(self.bias)
         return self.output
      end
      formatInput(self, samples)
      self.output:resize(#samples, nOut)
   end
   self.output:copy(self.bias:view(1, nOut):expand(self.output:size(1), nOut))
   sparseForward(self.output, self.weight, self.formatted_input)
   if not batchMode then
      self.output = self.output[1]
   end
   return self.output
end

function SparseLinear:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local _, batchMode, legacyMode = self:reshapeInput(input)
   self.legacyMode = legacyMode
   self.lastInput = self.lastInput or gradOutput.new()
   if self.sparseUpdate == NO_LAST_INPUT then
      self.lastInput:resizeAs(self.formatted_input):copy(self.formatted_input)
      self.sparseUpdate = ONE_LAST_INPUT
   elseif self.sparseUpdate == ONE_LAST_INPUT then
      self.sparseUpdate = ACC_MULTIPLE_TIMES
   end
   if not batchMode then
      gradOutput = gradOutput:view(1, gradOutput:size(1))
   end
   sparseAccGrad(self.gradWeight, self.gradBias, gradOutput, self.formatted_input, scale)
   if self.weightDecay and self.weightDecay ~= 0 then
      self.gradWeight:add(self.weightDecay, self.weight)
   end
end

function SparseLinear:updateGradInput(input, gradOutput)
   if self.legacyMode then
      if torch.type(self.gradInput) ~= torch.type(gradOutput) then self.gradInput = gradOutput.new() end
      self.gradInput:resizeAs(input)
   else
      self.gradInput = {}
   end
   if self.doGradInput then
      local nIn = self.weight:size(2)
      -- the dense gradient: W^T gradOutput per sample
      local g = gradOutput:dim() == 1 and gradOutput:view(1, -1) or gradOutput
      local gi = g.new(g:size(1), nIn):mm(g, self.weight)
      local indices = torch.range(1, nIn):typeAs(gi)
      if self.legacyMode then
         self.gradInput:resize(gi:size(1), nIn, 2)
         self.gradInput:select(3, 1):copy(indices:view(1, nIn):expand(gi:size(1), nIn))
         self.gradInput:select(3, 2):copy(gi)
      else
         for i = 1, gi:size(1) do
            self.gradInput[i] = gradOutput.new(nIn, 2)
            self.gradInput[i]:select(2, 1):copy(indices)
            self.gradInput[i]:select(2, 2):copy(gi[i])
         end
      end
   end
   return self.gradInput
end

-- The weight columns the kept input used.
local function touchedColumns(self)
   local cols = self.lastInput:select(2, 2):long()
   -- each column once
   local seen = torch.ByteTensor(self.weight:size(2)):zero()
   seen:indexFill(1, cols, 1)
   return seen:nonzero():view(-1)
end

function SparseLinear:updateParameters(learningRate)
   if self.lastInput and self.sparseUpdate == ONE_LAST_INPUT then
      local cols = touchedColumns(self)
      self.weight:indexCopy(2, cols, self.weight:index(2, cols):add(-learningRate, self.gradWeight:index(2, cols)))
      self.bias:add(-learningRate, self.gradBias)
   else
      parent.updateParameters(self, learningRate)
   end
end

function SparseLinear:zeroGradParameters()
   if self.lastInput and self.sparseUpdate == ONE_LAST_INPUT then
      self.gradWeight:indexFill(2, touchedColumns(self), 0)
      self.gradBias:zero()
   else
      parent.zeroGradParameters(self)
   end
   self.sparseUpdate = NO_LAST_INPUT
end

function SparseLinear:clearState()
   if self.lastInput then self.lastInput:set() end
   self.formatted_input = nil
   return parent.clearState(self)
end

return SparseLinear
