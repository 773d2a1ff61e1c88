-- nn.DistKLDivCriterion([sizeAverage]): the Kullback-Leibler divergence of the target distribution
-- from the input, given as log-probabilities: sum over the elements with target t > 0 of
-- t (log t - x); divided by the element count unless sizeAverage is false. Input and target have
-- the same size (any shape).

local kernels = require 'nn.engine.kernels'

local DistKLDivCriterion, parent = torch.class('nn.DistKLDivCriterion', 'nn.Criterion')

-- The original took no argument (sizeAverage was only set as a field); nn's own tests pass one,
-- so it is taken here.
function DistKLDivCriterion:__init(sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
end

local function checked(input, target)
   if not torch.isTensor(target) or not target:isSameSizeAs(input) then
      error('nn.DistKLDivCriterion: input and target should have the same size', 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   return target
end

-- Elements whose target is not positive count for nothing (0 log 0 = 0).
local function klLoss(input, target)
   local outside = target:le(0)
   local logt = target:clone():maskedFill(outside, 1):log()
   return logt:add(-1, input):cmul(target):maskedFill(outside, 0):sum()
end

local function klGrad(gradInput, input, target, norm)
   gradInput:resizeAs(input):gt(target, 0):cmul(target):mul(-norm)
   return gradInput
end

function DistKLDivCriterion:updateOutput(input, target)
   target = checked(input, target)
   local k = kernels.fused('pointwiseLoss', input, target)
   if k then
      -- One pass in Rust (kernels::nn_loss).
      self.output = k('kldiv', input:contiguous(), target:contiguous(), nil, nil)
   else
      self.output = klLoss(input, target)
   end
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function DistKLDivCriterion:updateGradInput(input, target)
   target = checked(input, target)
   local k = kernels.fused('pointwiseGrad', input, target, self.gradInput)
   if k then
      self.gradInput:resizeAs(input)
      k('kldiv', self.gradInput, input:contiguous(), target:contiguous(), nil, self.sizeAverage and 1 / input:nElement() or 1, nil)
      return self.gradInput
   end
   klGrad(self.gradInput, input, target, self.sizeAverage and 1 / input:nElement() or 1)
   return self.gradInput
end

return DistKLDivCriterion
