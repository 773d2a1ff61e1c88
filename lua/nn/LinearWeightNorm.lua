-- nn.LinearWeightNorm(inputSize, outputSize[, bias, eps]): nn.Linear with weight normalisation:
-- each row of the weight is g_i * v_i / ||v_i|| (||v_i|| at least eps), and v, g and the bias are
-- the parameters. In training the weight is recomputed at every forward pass. fromLinear(linear)
-- and toLinear() convert from and to nn.Linear with the same outputs.

require 'nn.Linear'
local LinearWeightNorm, parent = torch.class('nn.LinearWeightNorm', 'nn.Linear')

function LinearWeightNorm:__init(inputSize, outputSize, bias, eps)
   nn.Module.__init(self) -- not Linear's: the tensors are different
   if bias == nil then bias = true end
   self.eps = eps or 1e-16
   self.outputSize = outputSize
   self.inputSize = inputSize
   self.v = torch.Tensor(outputSize, inputSize)
   self.gradV = torch.Tensor(outputSize, inputSize)
   self.weight = torch.Tensor(outputSize, inputSize)
   self.g = torch.Tensor(outputSize, 1)
   self.gradG = torch.Tensor(outputSize, 1)
   self.norm = torch.Tensor(outputSize, 1)
   self.scale = torch.Tensor(outputSize, 1)
   if bias then
      self.bias = torch.Tensor(outputSize)
      self.gradBias = torch.Tensor(outputSize)
   end
   self:reset()
end

function LinearWeightNorm:evaluate()
   if self.train ~= false then self:updateWeightMatrix() end
   parent.evaluate(self)
end

-- v = weight, g = the lengths of its rows.
function LinearWeightNorm:initFromWeight(weight)
   weight = weight or self.weight
   self.g:norm(weight, 2, 2):clamp(self.eps, math.huge)
   self.v:copy(weight)
   return self
end

function LinearWeightNorm.fromLinear(linear)
   local module = nn.LinearWeightNorm(linear.weight:size(2), linear.weight:size(1), torch.isTensor(linear.bias))
   module.weight:copy(linear.weight)
   module:initFromWeight()
   if linear.bias then module.bias:copy(linear.bias) end
   return module
end

function LinearWeightNorm:toLinear()
   self:updateWeightMatrix()
   local module = nn.Linear(self.inputSize, self.outputSize, torch.isTensor(self.bias))
   module.weight:copy(self.weight)
   if self.bias then module.bias:copy(self.bias) end
   return module
end

function LinearWeightNorm:parameters()
   if self.bias then
      return { self.v, self.g, self.bias }, { self.gradV, self.gradG, self.gradBias }
   end
   return { self.v, self.g }, { self.gradV, self.gradG }
end

function LinearWeightNorm:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.inputSize)
   end
   self.weight:uniform(-stdv, stdv)
   self:initFromWeight()
   if self.bias then self.bias:uniform(-stdv, stdv) end
end

-- weight = v * g / ||v|| row by row (norm and scale kept for the backward pass).
function LinearWeightNorm:updateWeightMatrix()
   if self.norm:dim() == 0 then self.norm:resizeAs(self.g) end
   if self.scale:dim() == 0 then self.scale:resizeAs(self.g) end
   if self.weight:dim() == 0 then self.weight:resizeAs(self.v) end
   self.norm:norm(self.v, 2, 2):clamp(self.eps, math.huge)
   self.scale:cdiv(self.g, self.norm)
   self.weight:cmul(self.v, self.scale:expandAs(self.v))
end

function LinearWeightNorm:updateOutput(input)
   if self.train ~= false then self:updateWeightMatrix() end
   return parent.updateOutput(self, input)
end

-- dL/dw of this call (dw), mapped to g and v: dL/dg_i = dw_i . v_i / ||v_i||,
-- dL/dv_i = scale_i dw_i - scale_i dL/dg_i v_i / ||v_i||.
function LinearWeightNorm:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local dw = self.v.new():resizeAs(self.v):zero()
   if input:dim() == 1 then
      dw:addr(scale, gradOutput, input)
      if self.bias then self.gradBias:add(scale, gradOutput) end
   elseif input:dim() == 2 then
      dw:addmm(scale, gradOutput:t(), input)
      if self.bias then self.gradBias:add(scale, gradOutput:sum(1):view(-1)) end
   end
   local s = self.scale:expandAs(self.v)
   local n = self.norm:expandAs(self.v)
   -- both parts from the current v and g before either moves (in accUpdateGradParameters the
   -- gradient fields are v and g themselves)
   local dg = torch.cmul(dw, self.v):cdiv(n):sum(2)
   local dv = torch.cmul(dw, s):add(-1, torch.cmul(self.v, s):cdiv(n):cmul(dg:expandAs(self.v)))
   self.gradG:add(dg)
   self.gradV:add(dv)
end

-- v, g and the bias move by -lr times this call's gradients (the gradient fields pointed at them).
function LinearWeightNorm:accUpdateGradParameters(input, gradOutput, lr)
   local gradV, gradG, gradBias = self.gradV, self.gradG, self.gradBias
   self.gradV, self.gradG, self.gradBias = self.v, self.g, self.bias
   local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
   self.gradV, self.gradG, self.gradBias = gradV, gradG, gradBias
   if not ok then error(err, 0) end
end

LinearWeightNorm.defaultAccUpdateGradParameters = LinearWeightNorm.accUpdateGradParameters
LinearWeightNorm.sharedAccUpdateGradParameters = LinearWeightNorm.accUpdateGradParameters

function LinearWeightNorm:clearState()
   nn.utils.clear(self, 'weight', 'norm', 'scale')
   return parent.clearState(self)
end

function LinearWeightNorm:__tostring__()
   return torch.type(self) .. string.format('(%d -> %d)', self.inputSize, self.outputSize)
      .. (self.bias == nil and ' without bias' or '')
end

return LinearWeightNorm
