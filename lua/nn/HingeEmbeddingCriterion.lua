-- nn.HingeEmbeddingCriterion([margin]): for distances x and labels y (1: similar, -1: dissimilar),
-- the sum of x_i where y_i = 1 and max(0, margin - x_i) where y_i = -1 (margin 1 by default),
-- divided by the element count unless sizeAverage is false. y is a tensor of x's element count, or
-- a number that applies to every element.

local HingeEmbeddingCriterion, parent = torch.class('nn.HingeEmbeddingCriterion', 'nn.Criterion')

function HingeEmbeddingCriterion:__init(margin)
   parent.__init(self)
   self.margin = margin or 1
   self.sizeAverage = true
end

-- The labels as a tensor shaped like the input.
local function labelsFor(input, y)
   if type(y) == 'number' then
      return input.new():resizeAs(input):fill(y)
   end
   if not torch.isTensor(y) or y:nElement() ~= input:nElement() then
      error(string.format('nn.HingeEmbeddingCriterion: the labels must be a number or a tensor of %d elements',
         input:nElement()), 3)
   end
   if y:type() ~= input:type() then y = y:type(input:type()) end
   if not y:isSameSizeAs(input) then y = y:contiguous():view(input:size()) end
   return y
end

local function hingeEmbeddingLoss(input, y, margin)
   local similar = input.new():eq(y, 1)
   local dissimilar = input.new():eq(y, -1)
   local pull = torch.cmul(input, similar):sum()
   local push = torch.mul(input, -1):add(margin):cmax(0):cmul(dissimilar):sum()
   return pull + push
end

-- 1 where y = 1; -1 where y = -1 and the margin is not met (x <= margin).
local function hingeEmbeddingGrad(gradInput, input, y, margin, norm)
   local dissimilar = input.new():eq(y, -1)
   local beyond = input.new():gt(input, margin):cmul(dissimilar)
   gradInput:resizeAs(input):eq(y, 1):add(-1, dissimilar):add(beyond):mul(norm)
   return gradInput
end

function HingeEmbeddingCriterion:updateOutput(input, y)
   local labels = labelsFor(input, y)
   self.output = hingeEmbeddingLoss(input, labels, self.margin)
   if self.sizeAverage == nil or self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function HingeEmbeddingCriterion:updateGradInput(input, y)
   local labels = labelsFor(input, y)
   local averaged = self.sizeAverage == nil or self.sizeAverage
   hingeEmbeddingGrad(self.gradInput, input, labels, self.margin, averaged and 1 / input:nElement() or 1)
   return self.gradInput
end

return HingeEmbeddingCriterion
