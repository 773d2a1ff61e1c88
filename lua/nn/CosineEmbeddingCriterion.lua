-- nn.CosineEmbeddingCriterion([margin]): for a pair {x1, x2} and a label y (1: similar, -1:
-- dissimilar), 1 - cos(x1, x2) when y = 1 and max(0, cos(x1, x2) - margin) when y = -1 (margin 0 by
-- default; between -1 and 1). x1 and x2 are vectors (y a number or a 1-element tensor) or N x D
-- batches (y a vector of N labels); the batch loss is averaged over N unless sizeAverage is false.

local tableinput = require 'nn.engine.tableinput'

local CosineEmbeddingCriterion, parent = torch.class('nn.CosineEmbeddingCriterion', 'nn.Criterion')

-- Keeps the norms of zero vectors away from 0, as the original does.
local EPS = 1e-12

function CosineEmbeddingCriterion:__init(margin)
   parent.__init(self)
   self.margin = margin or 0
   self.gradInput = { torch.Tensor(), torch.Tensor() }
   self.sizeAverage = true
end

-- Called from rowsAndLabels: level 4 (the check, rowsAndLabels, the pass, its caller).
local checkPair = tableinput.pair('nn.CosineEmbeddingCriterion', { shown = ' {x1, x2}', level = 4 })

-- The pair as N x D rows and the labels as an N x 1 tensor of the input's type.
local function rowsAndLabels(input, y)
   checkPair(input)
   local x1, x2 = input[1], input[2]
   if not x1:isSameSizeAs(x2) or (x1:dim() ~= 1 and x1:dim() ~= 2) then
      error('nn.CosineEmbeddingCriterion: x1 and x2 must be vectors or matrices of the same size', 3)
   end
   if x1:dim() == 1 then
      x1, x2 = x1:view(1, -1), x2:view(1, -1)
   end
   local labels
   if type(y) == 'number' then
      labels = x1.new(1, 1):fill(y)
   elseif torch.isTensor(y) then
      labels = y:type() == x1:type() and y or y:type(x1:type())
      labels = labels:contiguous():view(-1, 1)
   else
      error('nn.CosineEmbeddingCriterion: the label must be a number or a tensor of them', 3)
   end
   if labels:size(1) ~= x1:size(1) then
      error(string.format('nn.CosineEmbeddingCriterion: %d labels for %d pairs', labels:size(1), x1:size(1)), 3)
   end
   return x1, x2, labels
end

-- Per pair (N x 1 each): the cosine, the dot product, the squared norms (plus EPS) and
-- w = 1 / sqrt(|x1|^2 |x2|^2).
local function cosines(x1, x2)
   local dot = torch.cmul(x1, x2):sum(2)
   local n1 = torch.cmul(x1, x1):sum(2):add(EPS)
   local n2 = torch.cmul(x2, x2):sum(2):add(EPS)
   local w = torch.cmul(n1, n2):sqrt():pow(-1)
   return torch.cmul(dot, w), dot, n1, n2, w
end

-- Per pair: its loss (N x 1).
local function pairLosses(cos, labels, margin)
   local similar = cos.new():eq(labels, 1)
   local dissimilar = cos.new():eq(labels, -1)
   local pull = torch.mul(cos, -1):add(1):cmul(similar)
   local push = torch.add(cos, -margin):cmax(0):cmul(dissimilar)
   return pull:add(push), similar, dissimilar
end

function CosineEmbeddingCriterion:updateOutput(input, y)
   local x1, x2, labels = rowsAndLabels(input, y)
   local cos = cosines(x1, x2)
   self.output = pairLosses(cos, labels, self.margin):sum()
   if self.sizeAverage then self.output = self.output / labels:size(1) end
   return self.output
end

-- d cos / d x1 = w (x2 - dot / |x1|^2 x1) (and symmetrically for x2), taken with sign -1 for
-- similar pairs, +1 for dissimilar ones, and 0 where a pair's loss is 0.
function CosineEmbeddingCriterion:updateGradInput(input, y)
   local x1, x2, labels = rowsAndLabels(input, y)
   local cos, dot, n1, n2, w = cosines(x1, x2)
   local losses, similar, dissimilar = pairLosses(cos, labels, self.margin)
   local coef = losses.new():gt(losses, 0):cmul(torch.add(dissimilar, -1, similar)):cmul(w)
   if self.sizeAverage then coef:div(labels:size(1)) end
   local g1, g2 = self.gradInput[1], self.gradInput[2]
   if g1:type() ~= x1:type() then g1 = x1.new(); self.gradInput[1] = g1 end
   if g2:type() ~= x1:type() then g2 = x1.new(); self.gradInput[2] = g2 end
   g1:resizeAs(x1):copy(x2):addcmul(-1, torch.cdiv(dot, n1):expandAs(x1), x1):cmul(coef:expandAs(x1))
   g2:resizeAs(x2):copy(x1):addcmul(-1, torch.cdiv(dot, n2):expandAs(x2), x2):cmul(coef:expandAs(x2))
   if input[1]:dim() == 1 then
      g1:resize(input[1]:size(1))
      g2:resize(input[2]:size(1))
   end
   return self.gradInput
end

return CosineEmbeddingCriterion
