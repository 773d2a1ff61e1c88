-- nn.L1HingeEmbeddingCriterion([margin]): for a pair {x1, x2} and a label y (1: similar, -1:
-- dissimilar), the L1 distance d = ||x1 - x2||_1 when y = 1, max(0, margin - d) when y = -1
-- (margin 1 by default).

local tableinput = require 'nn.engine.tableinput'

local L1HingeEmbeddingCriterion, parent = torch.class('nn.L1HingeEmbeddingCriterion', 'nn.Criterion')

function L1HingeEmbeddingCriterion:__init(margin)
   parent.__init(self)
   self.margin = margin or 1
   self.gradInput = { torch.Tensor(), torch.Tensor() }
end

-- Called from checkPair: level 4 (the check, checkPair, the pass, its caller).
local pairCheck = tableinput.pair('nn.L1HingeEmbeddingCriterion', { shown = ' {x1, x2}', level = 4 })

local function checkPair(input)
   pairCheck(input)
   if input[1]:nElement() ~= input[2]:nElement() then
      error('nn.L1HingeEmbeddingCriterion: x1 and x2 must have the same number of elements', 3)
   end
end

function L1HingeEmbeddingCriterion:updateOutput(input, y)
   checkPair(input)
   self.output = input[1]:dist(input[2], 1)
   if y == -1 then
      self.output = math.max(0, self.margin - self.output)
   end
   return self.output
end

-- The gradient of d with respect to x1 is sign(x1 - x2) (0 where they are equal); for y = -1 it is
-- negated inside the margin and 0 beyond it. x2 gets the opposite.
function L1HingeEmbeddingCriterion:updateGradInput(input, y)
   checkPair(input)
   local g1, g2 = self.gradInput[1], self.gradInput[2]
   g1:resizeAs(input[1]):copy(input[1]):add(-1, input[2])
   local d = g1:norm(1)
   g1:sign()
   if y == -1 then
      if d > self.margin then g1:zero() else g1:mul(-1) end
   end
   g2:resizeAs(input[2]):copy(g1):mul(-1)
   return self.gradInput
end

return L1HingeEmbeddingCriterion
