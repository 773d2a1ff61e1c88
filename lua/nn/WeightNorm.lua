-- nn.WeightNorm(module[, outputDim]): weight normalisation (Salimans & Kingma) of a module with a
-- weight: the weight is reparametrised as w = g * v / ||v||, one length g and one direction v per
-- output unit, and v and g (with the module's bias) become the parameters. outputDim (default 1)
-- is the weight dimension of the output units; the rest of the weight, whatever its shape, is one
-- row of v. In training the weight is recomputed from v and g at every forward pass.
--
-- With r = ||v|| (stabilised by 1e-4 under the root) and dL/dw from the module:
--   dL/dg = (dL/dw . v) / r,   dL/dv = (g / r) dL/dw - (g dL/dg / r^2) v.

require 'nn.Decorator'
local WeightNorm, parent = torch.class('nn.WeightNorm', 'nn.Decorator')

function WeightNorm:__init(module, outputDim)
   parent.__init(self, module)
   assert(module.weight, 'nn.WeightNorm: the module must have a weight')
   if module.bias then
      self.bias = module.bias
      self.gradBias = module.gradBias
   end
   self.gradWeight = module.gradWeight
   self.weight = module.weight
   self.outputDim = outputDim or 1
   self.otherDims = 1
   for i = 1, self.weight:dim() do
      if i ~= self.outputDim then self.otherDims = self.otherDims * self.weight:size(i) end
   end
   -- v's 2-D shape, and the weight's shape with outputDim moved first
   self.viewIn = torch.LongStorage { self.weight:size(self.outputDim), self.otherDims }
   self.viewOut = self.weight:size()
   self.weightSize = self.weight:size()
   for i = self.outputDim - 1, 1, -1 do
      self.viewOut[i], self.viewOut[i + 1] = self.viewOut[i + 1], self.viewOut[i]
   end
   self.v = torch.Tensor(self.viewIn[1], self.viewIn[2])
   self.g = torch.Tensor(self.viewIn[1])
   self._norm = torch.Tensor(self.viewIn[1])
   self._scale = torch.Tensor(self.viewIn[1])
   self.gradG = torch.Tensor(self.viewIn[1]):zero()
   self.gradV = torch.Tensor(self.viewIn):zero()
   self:resetInit()
end

-- `t` (shaped like the weight) with outputDim moved to the front, and back.
function WeightNorm:permuteIn(t)
   for i = self.outputDim - 1, 1, -1 do t = t:transpose(i, i + 1) end
   return t
end

function WeightNorm:permuteOut(t)
   for i = 1, self.outputDim - 1 do t = t:transpose(i, i + 1) end
   return t
end

function WeightNorm:resetInit()
   self.v:normal(0, math.sqrt(2 / self.viewIn[2]))
   self.g:norm(self.v, 2, 2)
   if self.bias then self.bias:zero() end
end

function WeightNorm:evaluate()
   if self.train ~= false then
      self:updateWeight()
      parent.evaluate(self)
   end
end

-- weight = g * v / ||v||, written into the module's weight.
function WeightNorm:updateWeight()
   local rows = self.viewIn[1]
   self._norm:norm(self.v, 2, 2):pow(2):add(1e-4):sqrt()
   self._scale:copy(self.g):cdiv(self._norm)
   local w = self.v.new():resizeAs(self.v):cmul(self.v, self._scale:view(rows, 1):expandAs(self.v))
   self.weight:copy(self:permuteOut(w:view(self.viewOut)))
end

function WeightNorm:updateOutput(input)
   if self.train ~= false then self:updateWeight() end
   self.output:set(self.modules[1]:updateOutput(input))
   return self.output
end

function WeightNorm:updateGradInput(input, gradOutput)
   self.gradInput:set(self.modules[1]:updateGradInput(input, gradOutput))
   return self.gradInput
end

-- Adds to gradG and gradV the part of dL/dw in `gw` (shaped like the weight).
local function accumulateVG(self, gw)
   local rows = self.viewIn[1]
   local d = self:permuteIn(gw):contiguous():view(self.viewIn)
   local norm = self._norm:view(rows, 1):expandAs(self.v)
   local scale = self._scale:view(rows, 1):expandAs(self.v)
   local dg = torch.cmul(d, self.v):cdiv(norm):sum(2):view(rows)
   local dv = torch.cmul(d, scale):add(-1, torch.cmul(self.v, scale):cdiv(norm):cmul(dg:view(rows, 1):expandAs(self.v)))
   self.gradG:add(dg)
   self.gradV:add(dv)
end

-- The module accumulates its weight gradient into a zeroed scratch, so that this call's part can
-- be mapped to v and g (the map is linear); the module's gradWeight still gets the sum.
function WeightNorm:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local module = self.modules[1]
   local gradWeight = module.gradWeight
   self._gradW = self._gradW or gradWeight.new()
   self._gradW:resizeAs(gradWeight):zero()
   module.gradWeight = self._gradW
   local ok, err = pcall(module.accGradParameters, module, input, gradOutput, scale)
   module.gradWeight = gradWeight
   if not ok then error(err, 0) end
   gradWeight:add(self._gradW)
   accumulateVG(self, self._gradW)
end

-- v, g and the bias move by -lr times this call's gradients.
function WeightNorm:accUpdateGradParameters(input, gradOutput, lr)
   local gradV, gradG = self.gradV:clone(), self.gradG:clone()
   local gradBias = self.gradBias and self.gradBias:clone()
   local gradWeight = self.modules[1].gradWeight:clone()
   self.gradV:zero()
   self.gradG:zero()
   if self.gradBias then self.gradBias:zero() end
   self:accGradParameters(input, gradOutput, 1)
   self.v:add(-lr, self.gradV)
   self.g:add(-lr, self.gradG)
   if self.bias then self.bias:add(-lr, self.gradBias) end
   self.gradV:copy(gradV)
   self.gradG:copy(gradG)
   if self.gradBias then self.gradBias:copy(gradBias) end
   self.modules[1].gradWeight:copy(gradWeight)
end

WeightNorm.sharedAccUpdateGradParameters = WeightNorm.accUpdateGradParameters

function WeightNorm:zeroGradParameters()
   self.modules[1]:zeroGradParameters()
   self.gradV:zero()
   self.gradG:zero()
end

function WeightNorm:updateParameters(lr)
   if self.bias then self.bias:add(-lr, self.gradBias) end
   self.g:add(-lr, self.gradG)
   self.v:add(-lr, self.gradV)
end

function WeightNorm:parameters()
   if self.bias then
      return { self.v, self.g, self.bias }, { self.gradV, self.gradG, self.gradBias }
   end
   return { self.v, self.g }, { self.gradV, self.gradG }
end

-- The weight and its gradient are not saved: they follow from v and g (read rebuilds them).
function WeightNorm:write(file)
   local module = self.modules[1]
   local weight, gradWeight = module.weight, module.gradWeight
   self.weightSize = self.weightSize or weight:size()
   self.weight, self.gradWeight, module.weight, module.gradWeight = nil, nil, nil, nil
   local object = {}
   for k, v in pairs(self) do object[k] = v end
   local ok, err = pcall(file.writeObject, file, object)
   module.weight, module.gradWeight = weight, gradWeight
   self.weight, self.gradWeight = weight, gradWeight
   if not ok then error(err, 0) end
end

function WeightNorm:read(file)
   local object = file:readObject()
   for k, v in pairs(object) do self[k] = v end
   if not self.weight then
      local module = self.modules[1]
      module.weight = self.v.new(self.weightSize)
      module.gradWeight = self.v.new(self.weightSize):zero()
      self.weight, self.gradWeight = module.weight, module.gradWeight
      self._norm = self._norm or self.v.new(self.viewIn[1])
      self._scale = self._scale or self.v.new(self.viewIn[1])
      self:updateWeight()
   end
end

function WeightNorm:clearState()
   self._gradW = nil
   return parent.clearState(self)
end

return WeightNorm
