-- nn.AbsCriterion([sizeAverage]): sum |x_i - y_i| over every element, divided by the element count
-- unless sizeAverage is false. The target has the input's element count (any shape; elements are
-- matched in order).

local kernels = require 'nn.engine.kernels'

local AbsCriterion, parent = torch.class('nn.AbsCriterion', 'nn.Criterion')

function AbsCriterion:__init(sizeAverage)
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
      error(string.format('nn.AbsCriterion: the target must be a tensor of %d elements, like the input',
         input:nElement()), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

local function absLoss(input, target)
   return torch.add(input, -1, target):abs():sum()
end

-- d|x - y|/dx = sign(x - y), +1 at x == y (as the original's kernel does), times norm.
local function absGrad(gradInput, input, target, norm)
   gradInput:resizeAs(input):add(input, -1, target)
   gradInput:ge(gradInput, 0):mul(2 * norm):add(-norm)
   return gradInput
end

function AbsCriterion:updateOutput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseLoss', input, target)
   if k then
      -- One pass in Rust (kernels::nn_loss).
      self.output = k('abs', input:contiguous(), target:contiguous(), nil, nil)
   else
      self.output = absLoss(input, target)
   end
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function AbsCriterion:updateGradInput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseGrad', input, target, self.gradInput)
   if k then
      self.gradInput:resizeAs(input)
      k('abs', self.gradInput, input:contiguous(), target:contiguous(), nil, self.sizeAverage and 1 / input:nElement() or 1, nil)
      return self.gradInput
   end
   absGrad(self.gradInput, input, target, self.sizeAverage and 1 / input:nElement() or 1)
   return self.gradInput
end

return AbsCriterion
