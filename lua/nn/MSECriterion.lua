-- nn.MSECriterion([sizeAverage]): sum (x_i - y_i)^2 over every element, divided by the element
-- count unless sizeAverage is false. The target has the input's element count (any shape; elements
-- are matched in order).

local kernels = require 'nn.engine.kernels'

local MSECriterion, parent = torch.class('nn.MSECriterion', 'nn.Criterion')

function MSECriterion:__init(sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
end

-- The target laid out like the input, in the input's type.
local function matched(input, target)
   if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      error(string.format('nn.MSECriterion: the target must be a tensor of %d elements, like the input (got %s)',
         input:nElement(), torch.isTensor(target) and target:nElement() .. ' elements' or torch.type(target)), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

local function mseLoss(input, target)
   local diff = torch.add(input, -1, target)
   return diff:dot(diff)
end

local function mseGrad(gradInput, input, target, norm)
   return gradInput:resizeAs(input):add(input, -1, target):mul(norm)
end

function MSECriterion:updateOutput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseLoss', input, target)
   if k then
      -- One pass in Rust (kernels::nn_loss).
      self.output = k('mse', input:contiguous(), target:contiguous(), nil, nil)
   else
      self.output = mseLoss(input, target)
   end
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function MSECriterion:updateGradInput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseGrad', input, target, self.gradInput)
   if k then
      self.gradInput:resizeAs(input)
      k('mse', self.gradInput, input:contiguous(), target:contiguous(), nil, self.sizeAverage and 1 / input:nElement() or 1, nil)
      return self.gradInput
   end
   mseGrad(self.gradInput, input, target, self.sizeAverage and 2 / input:nElement() or 2)
   return self.gradInput
end

return MSECriterion
