-- nn.MSECriterion([sizeAverage]): sum (x_i - y_i)^2 over every element, divided by the element
-- count unless sizeAverage is false. The target has the input's element count (any shape; elements
-- are matched in order).

local pointwise = require 'nn.engine.pointwise'

local MSECriterion, parent = torch.class('nn.MSECriterion', 'nn.Criterion')

local function mseLoss(input, target)
   local diff = torch.add(input, -1, target)
   return diff:dot(diff)
end

-- (x - y) times norm; the derivative's 2 comes in as gradScale.
local function mseGrad(gradInput, input, target, norm)
   return gradInput:resizeAs(input):add(input, -1, target):mul(norm)
end

pointwise.define(MSECriterion, parent, {
   name = 'nn.MSECriterion', kernel = 'mse', loss = mseLoss, grad = mseGrad, gradScale = 2, sayGot = true,
})

return MSECriterion
