-- nn.DistanceRatioCriterion([sizeAverage]): for a triplet embedding, with X the distances between
-- similar samples and Y those between dissimilar ones (input {X, Y}, tensors of N distances), the
-- loss -log(exp(-X) / (exp(-X) + exp(-Y))) summed over the N pairs, and divided by N unless
-- sizeAverage is false. See https://arxiv.org/pdf/1610.00243.pdf.

local tableinput = require 'nn.engine.tableinput'

local DistanceRatioCriterion, parent = torch.class('nn.DistanceRatioCriterion', 'nn.Criterion')

function DistanceRatioCriterion:__init(sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
end

-- Called from checkPair: level 4 (the check, checkPair, the pass, its caller).
local pairCheck = tableinput.pair('nn.DistanceRatioCriterion', { shown = ' {X, Y}', exact = true, level = 4 })

local function checkPair(input)
   pairCheck(input)
   local X, Y = input[1], input[2]
   if X:nElement() ~= Y:nElement() or X:size(1) ~= Y:size(1) then
      error("nn.DistanceRatioCriterion: X and Y must hold the same number of distances", 3)
   end
   if Y:type() ~= X:type() then Y = Y:type(X:type()) end
   return X, Y:contiguous():view(X:size())
end

-- X + log(exp(-X) + exp(-Y)) = X - min(X, Y) + log(1 + exp(-|X - Y|)), which neither overflows nor
-- underflows for large distances.
local function ratioLoss(X, Y)
   local gap = torch.add(X, -1, Y)
   local tail = gap:clone():abs():mul(-1):exp():log1p()
   return torch.add(X, -1, torch.cmin(X, Y)):add(tail):sum()
end

function DistanceRatioCriterion:updateOutput(input)
   local X, Y = checkPair(input)
   self.output = ratioLoss(X, Y)
   if self.sizeAverage then self.output = self.output / X:size(1) end
   return self.output
end

-- dLoss/dX = exp(-Y) / (exp(-X) + exp(-Y)) = sigmoid(X - Y), and dLoss/dY is its negative.
function DistanceRatioCriterion:updateGradInput(input)
   local X, Y = checkPair(input)
   self.dX = (self.dX and self.dX:type() == X:type()) and self.dX or X.new()
   self.dY = (self.dY and self.dY:type() == X:type()) and self.dY or X.new()
   self.dX:resizeAs(X):add(X, -1, Y):sigmoid()
   if self.sizeAverage then self.dX:div(X:size(1)) end
   self.dY:resizeAs(self.dX):copy(self.dX):mul(-1)
   self.gradInput = { self.dX:viewAs(input[1]), self.dY:viewAs(input[2]) }
   return self.gradInput
end

return DistanceRatioCriterion
