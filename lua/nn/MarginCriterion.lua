-- nn.MarginCriterion([margin]): the two-class hinge loss, sum max(0, margin - x_i y_i) with labels
-- y_i of 1 or -1 (margin 1 by default), divided by the element count unless sizeAverage is false.

local kernels = require 'nn.engine.kernels'

local MarginCriterion, parent = torch.class('nn.MarginCriterion', 'nn.Criterion')

function MarginCriterion:__init(margin)
   parent.__init(self)
   self.sizeAverage = true
   self.margin = margin or 1
end

local function matched(input, target)
   if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      error(string.format('nn.MarginCriterion: the target must be a tensor of %d elements, like the input',
         input:nElement()), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

local function marginLoss(input, target, margin)
   return torch.cmul(input, target):mul(-1):add(margin):cmax(0):sum()
end

-- -y where the margin is not met (x y < margin), 0 elsewhere.
local function marginGrad(gradInput, input, target, margin, norm)
   gradInput:resizeAs(input):cmul(input, target)
   gradInput:lt(gradInput, margin):cmul(target):mul(-norm)
   return gradInput
end

function MarginCriterion:updateOutput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseLoss', input, target)
   if k then
      -- One pass in Rust (kernels::nn_loss).
      self.output = k('margin', input:contiguous(), target:contiguous(), nil, self.margin)
   else
      self.output = marginLoss(input, target, self.margin)
   end
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function MarginCriterion:updateGradInput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseGrad', input, target, self.gradInput)
   if k then
      self.gradInput:resizeAs(input)
      k('margin', self.gradInput, input:contiguous(), target:contiguous(), nil, self.sizeAverage and 1 / input:nElement() or 1, self.margin)
      return self.gradInput
   end
   marginGrad(self.gradInput, input, target, self.margin, self.sizeAverage and 1 / input:nElement() or 1)
   return self.gradInput
end

return MarginCriterion
