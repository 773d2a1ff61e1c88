-- nn.PairwiseDistance([p]): the L_p distance ||x1 - x2||_p (p = 2 by default) of a pair {x1, x2}:
-- of two vectors (output of size 1), or row by row of two N x D matrices (output of size N).

local tableinput = require 'nn.engine.tableinput'

local PairwiseDistance, parent = torch.class('nn.PairwiseDistance', 'nn.Module')

function PairwiseDistance:__init(p)
   parent.__init(self)
   self.gradInput = {}
   self.diff = torch.Tensor()
   -- The field is named `norm` in the original (the p of the L_p norm).
   self.norm = p or 2
end

-- Called from rowsOf: level 4 (the check, rowsOf, the pass, its caller).
local checkPair = tableinput.pair('nn.PairwiseDistance', { shown = ' {x1, x2}', level = 4 })

-- The pair as N x D rows.
local function rowsOf(input)
   checkPair(input)
   local x1, x2 = input[1], input[2]
   if x1:dim() ~= 1 and x1:dim() ~= 2 then
      error('nn.PairwiseDistance: input must be vector or matrix', 3)
   end
   if not x1:isSameSizeAs(x2) then
      error('nn.PairwiseDistance: x1 and x2 must have the same size', 3)
   end
   if x1:dim() == 1 then
      return x1:view(1, -1), x2:view(1, -1)
   end
   return x1, x2
end

-- Per row: (sum |x1 - x2|^p)^(1/p), and the difference x1 - x2.
local function distances(x1, x2, p)
   local diff = torch.add(x1, -1, x2)
   local d = diff:clone():abs():pow(p):sum(2):pow(1 / p)
   return d, diff
end

function PairwiseDistance:updateOutput(input)
   local x1, x2 = rowsOf(input)
   local d = distances(x1, x2, self.norm)
   self.output:resize(x1:size(1)):copy(d)
   return self.output
end

-- d||u||_p / du_k = sign(u_k) |u_k|^(p-1) / ||u||_p^(p-1); 1e-6 is added to the norm, as the
-- original does, so that equal inputs do not divide by zero. x2 gets the opposite.
function PairwiseDistance:updateGradInput(input, gradOutput)
   local x1, x2 = rowsOf(input)
   local p = self.norm
   local d, diff = distances(x1, x2, p)
   for i = 1, 2 do
      if not self.gradInput[i] or self.gradInput[i]:type() ~= x1:type() then self.gradInput[i] = x1.new() end
   end
   local g1 = self.gradInput[1]
   g1:resizeAs(diff):copy(diff):abs():pow(p - 1):cmul(torch.sign(diff))
   local scale = d:add(1e-6):pow(1 - p):cmul(gradOutput:contiguous():view(-1, 1))
   g1:cmul(scale:expandAs(g1))
   self.gradInput[2]:resizeAs(g1):copy(g1):mul(-1)
   g1:resizeAs(input[1])
   self.gradInput[2]:resizeAs(input[2])
   return self.gradInput
end

function PairwiseDistance:clearState()
   nn.utils.clear(self, 'diff')
   return parent.clearState(self)
end

return PairwiseDistance
