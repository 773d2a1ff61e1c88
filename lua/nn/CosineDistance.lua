-- nn.CosineDistance(): the cosine similarity x1 . x2 / (|x1| |x2|) of a pair {x1, x2}: of two
-- vectors (output of size 1), or row by row of two N x D matrices (output of size N).

local tableinput = require 'nn.engine.tableinput'

local CosineDistance, parent = torch.class('nn.CosineDistance', 'nn.Module')

-- Keeps the norms of zero vectors away from 0, as the original does.
local EPS = 1e-12

function CosineDistance:__init()
   parent.__init(self)
   self.gradInput = { torch.Tensor(), torch.Tensor() }
end

-- Called from rowsOf: level 4 (the check, rowsOf, the pass, its caller).
local checkPair = tableinput.pair('nn.CosineDistance', { shown = ' {x1, x2}', level = 4 })

-- The pair as N x D rows.
local function rowsOf(input)
   checkPair(input)
   local x1, x2 = input[1], input[2]
   if not x1:isSameSizeAs(x2) or (x1:dim() ~= 1 and x1:dim() ~= 2) then
      error('nn.CosineDistance: x1 and x2 must be vectors or matrices of the same size', 3)
   end
   if x1:dim() == 1 then
      return x1:view(1, -1), x2:view(1, -1)
   end
   return x1, x2
end

-- Per row (N x 1 each): the dot product, the squared norms plus EPS, and w = 1/sqrt(n1 n2).
local function cosineParts(x1, x2)
   local dot = torch.cmul(x1, x2):sum(2)
   local n1 = torch.cmul(x1, x1):sum(2):add(EPS)
   local n2 = torch.cmul(x2, x2):sum(2):add(EPS)
   local w = torch.cmul(n1, n2):sqrt():pow(-1)
   return dot, n1, n2, w
end

function CosineDistance:updateOutput(input)
   local x1, x2 = rowsOf(input)
   local dot, _, _, w = cosineParts(x1, x2)
   self.output:resize(x1:size(1)):copy(dot:cmul(w))
   return self.output
end

-- d cos / d x1 = w (x2 - (x1 . x2) / |x1|^2 x1), symmetrically for x2; rows scaled by gradOutput.
function CosineDistance:updateGradInput(input, gradOutput)
   local x1, x2 = rowsOf(input)
   local dot, n1, n2, w = cosineParts(x1, x2)
   for i = 1, 2 do
      if not self.gradInput[i] or self.gradInput[i]:type() ~= x1:type() then self.gradInput[i] = x1.new() end
   end
   local scale = w:cmul(gradOutput:contiguous():view(-1, 1)):expandAs(x1)
   local g1, g2 = self.gradInput[1], self.gradInput[2]
   g1:resizeAs(x1):copy(x2):addcmul(-1, torch.cdiv(dot, n1):expandAs(x1), x1):cmul(scale)
   g2:resizeAs(x2):copy(x1):addcmul(-1, torch.cdiv(dot, n2):expandAs(x2), x2):cmul(scale)
   if input[1]:dim() == 1 then
      g1:resizeAs(input[1])
      g2:resizeAs(input[2])
   end
   return self.gradInput
end

return CosineDistance
