-- nn.Bilinear(inputSize1, inputSize2, outputSize[, bias]): input {x1, x2}, two batches (N x D1 and
-- N x D2); y_k = x1^T W_k x2 + b_k for each of the outputSize slices W_k of weight (K x D1 x D2).
-- dy_k/dx1 = W_k x2, dy_k/dx2 = W_k^T x1, dy_k/dW_k = x1 x2^T.

local Bilinear, parent = torch.class('nn.Bilinear', 'nn.Module')

local function isint(x)
   return type(x) == 'number' and x == math.floor(x)
end

function Bilinear:__assertInput(input)
   assert(input and torch.type(input) == 'table' and #input == 2,
      'nn.Bilinear: the input must be a table of two tensors')
   assert(input[1]:dim() == 2 and input[2]:dim() == 2, 'nn.Bilinear: the input tensors must be 2-D')
   assert(input[1]:size(1) == input[2]:size(1), 'nn.Bilinear: the input tensors must have the same number of rows')
   assert(input[1]:size(2) == self.weight:size(2), 'nn.Bilinear: the first input has the wrong number of columns')
   assert(input[2]:size(2) == self.weight:size(3), 'nn.Bilinear: the second input has the wrong number of columns')
end

function Bilinear:__assertInputGradOutput(input, gradOutput)
   assert(input[1]:size(1) == gradOutput:size(1), 'nn.Bilinear: gradOutput has the wrong number of rows')
   assert(gradOutput:size(2) == self.weight:size(1), 'nn.Bilinear: gradOutput has the wrong number of columns')
end

function Bilinear:__init(inputSize1, inputSize2, outputSize, bias)
   assert(inputSize1 and inputSize2 and outputSize, 'nn.Bilinear: inputSize1, inputSize2 and outputSize are expected')
   assert(isint(inputSize1) and isint(inputSize2) and isint(outputSize), 'nn.Bilinear: the sizes must be integers')
   assert(inputSize1 > 0 and inputSize2 > 0 and outputSize > 0, 'nn.Bilinear: the sizes must be positive')
   parent.__init(self)
   if bias == nil then bias = true end
   self.weight = torch.Tensor(outputSize, inputSize1, inputSize2)
   self.gradWeight = torch.Tensor(outputSize, inputSize1, inputSize2)
   if bias then
      self.bias = torch.Tensor(outputSize)
      self.gradBias = torch.Tensor(outputSize)
   end
   self.gradInput = { torch.Tensor(), torch.Tensor() }
   self:reset()
end

function Bilinear:reset(stdv)
   if stdv then
      assert(type(stdv) == 'number' and stdv > 0, 'nn.Bilinear: the standard deviation must be a positive number')
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:size(2))
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
   return self
end

-- One slice at a time: each is a matrix product, and outputSize is small next to the batch.
function Bilinear:updateOutput(input)
   self:__assertInput(input)
   local x1, x2 = input[1], input[2]
   local N, K = x1:size(1), self.weight:size(1)
   self.output:resize(N, K)
   self.buff2 = self.buff2 or x1.new()
   for k = 1, K do
      -- rows of (x1 W_k) . x2
      self.buff2:resize(N, x2:size(2)):mm(x1, self.weight[k]):cmul(x2)
      self.output:narrow(2, k, 1):sum(self.buff2, 2)
   end
   if self.bias then self.output:add(self.bias:view(1, K):expand(N, K)) end
   return self.output
end

function Bilinear:updateGradInput(input, gradOutput)
   assert(self)
   self:__assertInputGradOutput(input, gradOutput)
   local x1, x2 = input[1], input[2]
   local N, K = x1:size(1), self.weight:size(1)
   local g1, g2 = self.gradInput[1], self.gradInput[2]
   g1:resizeAs(x1):zero()
   g2:resizeAs(x2):zero()
   self.buff1 = self.buff1 or x1.new()
   self.buff2 = self.buff2 or x1.new()
   for k = 1, K do
      local gk = gradOutput:select(2, k):contiguous():view(N, 1)
      -- dx1 += g_k * (x2 W_k^T), dx2 += g_k * (x1 W_k)
      self.buff1:resizeAs(x1):mm(x2, self.weight[k]:t())
      g1:addcmul(1, self.buff1, gk:expandAs(x1))
      self.buff2:resizeAs(x2):mm(x1, self.weight[k])
      g2:addcmul(1, self.buff2, gk:expandAs(x2))
   end
   return self.gradInput
end

function Bilinear:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   self:__assertInputGradOutput(input, gradOutput)
   local x1, x2 = input[1], input[2]
   local N, K = x1:size(1), self.weight:size(1)
   self.buff1 = self.buff1 or x1.new()
   for k = 1, K do
      -- dW_k += (g_k * x1)^T x2
      local gk = gradOutput:select(2, k):contiguous():view(N, 1)
      self.buff1:resizeAs(x1):cmul(x1, gk:expandAs(x1))
      self.gradWeight[k]:addmm(scale, self.buff1:t(), x2)
   end
   if self.bias then self.gradBias:add(scale, gradOutput:sum(1):view(K)) end
end

function Bilinear:__tostring__()
   -- nn's format, the space before the bias note included
   return torch.type(self) .. string.format('(%dx%d -> %d) %s', self.weight:size(2), self.weight:size(3),
      self.weight:size(1), self.bias == nil and ' without bias' or '')
end

function Bilinear:clearState()
   if self.buff2 then self.buff2:set() end
   if self.buff1 then self.buff1:set() end
   return parent.clearState(self)
end

return Bilinear
