-- nn.DistKLDivCriterion([sizeAverage]): the Kullback-Leibler divergence of the target distribution
-- from the input, given as log-probabilities: sum over the elements with target t > 0 of
-- t (log t - x); divided by the element count unless sizeAverage is false. Input and target have
-- the same size (any shape).
--
-- The original took no argument (sizeAverage was only set as a field); nn's own tests pass one,
-- so it is taken here.

local pointwise = require 'nn.engine.pointwise'

local DistKLDivCriterion, parent = torch.class('nn.DistKLDivCriterion', 'nn.Criterion')

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

pointwise.define(DistKLDivCriterion, parent, {
   name = 'nn.DistKLDivCriterion', kernel = 'kldiv', loss = klLoss, grad = klGrad, sameSize = true,
})

return DistKLDivCriterion
