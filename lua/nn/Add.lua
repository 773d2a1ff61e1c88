-- nn.Add(inputSize[, scalar]): y = x + b with a learnt bias b of inputSize elements (one per input
-- element), or one number added to everything when `scalar` is true. An input with more
-- elements than the bias is a batch: the bias is added to each sample (the first dimension).

local Add, parent = torch.class('nn.Add', 'nn.Module')

function Add:__init(inputSize, scalar)
   parent.__init(self)
   local size = scalar and 1 or inputSize
   self.scalar = scalar
   self.bias = torch.Tensor(size)
   self.gradBias = torch.Tensor(size)
   self._ones = torch.Tensor { 1 }
   self:reset()
end

function Add:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.bias:size(1))
   end
   self.bias:uniform(-stdv, stdv)
end

-- A vector of `n` ones (the batch), to add the bias to every sample with one product.
local function ones(self, n)
   if self._ones:nElement() ~= n then self._ones:resize(n):fill(1) end
   return self._ones
end

function Add:updateOutput(input)
   self.output:resizeAs(input):copy(input)
   if self.scalar then
      self.output:add(self.bias[1])
   elseif input:nElement() == self.bias:nElement() then
      self.output:add(self.bias:viewAs(input))
   else
      local batchSize = input:size(1)
      self.output:view(batchSize, -1):addr(1, ones(self, batchSize), self.bias:view(-1))
   end
   return self.output
end

function Add:updateGradInput(input, gradOutput)
   if self.gradInput then
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
      return self.gradInput
   end
end

function Add:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   if self.gradBias:size(1) == 1 then
      self.gradBias[1] = self.gradBias[1] + scale * gradOutput:sum()
   elseif input:nElement() == self.bias:nElement() then
      self.gradBias:add(scale, gradOutput:contiguous():view(-1))
   else
      local batchSize = input:size(1)
      self.gradBias:view(-1):addmv(scale, gradOutput:contiguous():view(batchSize, -1):t(), ones(self, batchSize))
   end
end

return Add
