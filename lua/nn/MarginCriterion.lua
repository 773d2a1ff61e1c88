-- nn.MarginCriterion([margin]): the two-class hinge loss, sum max(0, margin - x_i y_i) with labels
-- y_i of 1 or -1 (margin 1 by default), divided by the element count unless sizeAverage is false.

local pointwise = require 'nn.engine.pointwise'

local MarginCriterion, parent = torch.class('nn.MarginCriterion', 'nn.Criterion')

local function marginLoss(input, target, margin)
   return torch.cmul(input, target):mul(-1):add(margin):cmax(0):sum()
end

-- -y where the margin is not met (x y < margin), 0 elsewhere.
local function marginGrad(gradInput, input, target, norm, margin)
   gradInput:resizeAs(input):cmul(input, target)
   gradInput:lt(gradInput, margin):cmul(target):mul(-norm)
   return gradInput
end

pointwise.define(MarginCriterion, parent, {
   name = 'nn.MarginCriterion', kernel = 'margin', loss = marginLoss, grad = marginGrad,
   arg = function(self) return self.margin end,
})

function MarginCriterion:__init(margin)
   parent.__init(self)
   self.sizeAverage = true
   self.margin = margin or 1
end

return MarginCriterion
