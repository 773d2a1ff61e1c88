-- nn.MarginRankingCriterion([margin]): a ranking hinge loss on a pair {x1, x2}: with y = 1 when x1
-- should rank above x2 and y = -1 the other way, max(0, -y (x1 - x2) + margin) (margin 1 by default).
-- Either x1 and x2 are 1-element tensors and y a number, or they are vectors of N scores and y a
-- vector of N labels; the batch loss is averaged over N unless sizeAverage is false.

local tableinput = require 'nn.engine.tableinput'

local MarginRankingCriterion, parent = torch.class('nn.MarginRankingCriterion', 'nn.Criterion')

function MarginRankingCriterion:__init(margin)
   parent.__init(self)
   self.margin = margin or 1
   self.gradInput = { torch.Tensor(1), torch.Tensor(1) }
   self.sizeAverage = true
end

local checkPair = tableinput.pair('nn.MarginRankingCriterion', { shown = ' {x1, x2}' })

-- The hinge argument -y (x1 - x2) + margin of every pair.
local function distances(input, y, margin)
   local labels = y
   if labels:type() ~= input[1]:type() then labels = labels:type(input[1]:type()) end
   return torch.add(input[1], -1, input[2]):cmul(labels:contiguous():view(input[1]:size())):mul(-1):add(margin)
end

function MarginRankingCriterion:updateOutput(input, y)
   checkPair(input)
   if type(y) == 'number' then
      self.output = math.max(0, -y * (input[1][1] - input[2][1]) + self.margin)
   else
      self.output = distances(input, y, self.margin):cmax(0):sum()
      if self.sizeAverage then self.output = self.output / y:size(1) end
   end
   return self.output
end

-- Where the hinge is active (its argument >= 0): -y for x1 and y for x2.
function MarginRankingCriterion:updateGradInput(input, y)
   checkPair(input)
   local g1, g2 = self.gradInput[1], self.gradInput[2]
   if type(y) == 'number' then
      local active = -y * (input[1][1] - input[2][1]) + self.margin >= 0
      g1:resize(1):fill(active and -y or 0)
      g2:resize(1):fill(active and y or 0)
   else
      local labels = y
      if labels:type() ~= input[1]:type() then labels = labels:type(input[1]:type()) end
      local active = distances(input, y, self.margin)
      active:ge(active, 0)
      g1:resizeAs(active):copy(active):cmul(labels:contiguous():view(active:size())):mul(-1)
      g2:resizeAs(active):copy(active):cmul(labels:contiguous():view(active:size()))
      if self.sizeAverage then
         g1:div(y:size(1))
         g2:div(y:size(1))
      end
   end
   return self.gradInput
end

return MarginRankingCriterion
