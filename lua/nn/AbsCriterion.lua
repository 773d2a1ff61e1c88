-- nn.AbsCriterion([sizeAverage]): sum |x_i - y_i| over every element, divided by the element count
-- unless sizeAverage is false. The target has the input's element count (any shape; elements are
-- matched in order).

local pointwise = require 'nn.engine.pointwise'

local AbsCriterion, parent = torch.class('nn.AbsCriterion', 'nn.Criterion')

local function absLoss(input, target)
   return torch.add(input, -1, target):abs():sum()
end

-- d|x - y|/dx = sign(x - y), +1 at x == y (as the original's kernel does), times norm.
local function absGrad(gradInput, input, target, norm)
   gradInput:resizeAs(input):add(input, -1, target)
   gradInput:ge(gradInput, 0):mul(2 * norm):add(-norm)
   return gradInput
end

pointwise.define(AbsCriterion, parent, { name = 'nn.AbsCriterion', kernel = 'abs', loss = absLoss, grad = absGrad })

return AbsCriterion
