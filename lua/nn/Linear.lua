-- nn.Linear(inputSize, outputSize[, bias]): y = W x + b, for one sample (1-D input) or a batch
-- (2-D input, one sample per row). Matrix products go to BLAS.

local Linear, parent = torch.class('nn.Linear', 'nn.Module')

function Linear:__init(inputSize, outputSize, bias)
   parent.__init(self)
   assert(type(inputSize) == 'number' and type(outputSize) == 'number',
      'nn.Linear: expected the input and output sizes (numbers)')
   local withBias = bias == nil or bias == true
   self.weight = torch.Tensor(outputSize, inputSize)
   self.gradWeight = torch.Tensor(outputSize, inputSize)
   if withBias then
      self.bias = torch.Tensor(outputSize)
      self.gradBias = torch.Tensor(outputSize)
   end
   self:reset()
end

function Linear:noBias()
   self.bias = nil
   self.gradBias = nil
   return self
end

-- Uniform in [-s, s], s = 1/sqrt(inputSize), or stdv*sqrt(3) when given (a uniform of that
-- standard deviation).
function Linear:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:size(2))
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
   return self
end

-- A vector of ones as long as the batch (to add the bias to every row with one product).
local function ones(self, n)
   self.addBuffer = self.addBuffer or self.output.new()
   if self.addBuffer:nElement() ~= n then
      self.addBuffer:resize(n):fill(1)
   end
   return self.addBuffer
end

function Linear:updateOutput(input)
   if input:dim() == 1 then
      self.output:resize(self.weight:size(1))
      if self.bias then self.output:copy(self.bias) else self.output:zero() end
      self.output:addmv(1, self.weight, input)
   elseif input:dim() == 2 then
      local nframe = input:size(1)
      self.output:resize(nframe, self.weight:size(1))
      self.output:addmm(0, self.output, 1, input, self.weight:t())
      if self.bias then self.output:addr(1, ones(self, nframe), self.bias) end
   else
      error('nn.Linear: input must be a vector or a matrix (got ' .. input:dim() .. ' dimensions)')
   end
   return self.output
end

function Linear:updateGradInput(input, gradOutput)
   if self.gradInput then
      local nElement = self.gradInput:nElement()
      self.gradInput:resizeAs(input)
      if self.gradInput:nElement() ~= nElement then
         self.gradInput:zero()
      end
      if input:dim() == 1 then
         self.gradInput:addmv(0, 1, self.weight:t(), gradOutput)
      elseif input:dim() == 2 then
         self.gradInput:addmm(0, 1, gradOutput, self.weight)
      end
      return self.gradInput
   end
end

function Linear:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   if input:dim() == 1 then
      self.gradWeight:addr(scale, gradOutput, input)
      if self.bias then self.gradBias:add(scale, gradOutput) end
   elseif input:dim() == 2 then
      self.gradWeight:addmm(scale, gradOutput:t(), input)
      if self.bias then
         self.gradBias:addmv(scale, gradOutput:t(), ones(self, input:size(1)))
      end
   end
end

-- With shared weights, the update goes straight into them (Module's gradient swap), with no
-- gradient accumulated in between.
Linear.sharedAccUpdateGradParameters = Linear.accUpdateGradParameters

function Linear:clearState()
   if self.addBuffer then self.addBuffer:set() end
   return parent.clearState(self)
end

function Linear:__tostring__()
   return torch.type(self) .. string.format('(%d -> %d)', self.weight:size(2), self.weight:size(1))
      .. (self.bias == nil and ' without bias' or '')
end

return Linear
