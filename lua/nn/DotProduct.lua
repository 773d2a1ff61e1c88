-- nn.DotProduct(): the dot product of a pair {x1, x2}: of two vectors (output of size 1), or row
-- by row of two N x D matrices (output of size N).

local tableinput = require 'nn.engine.tableinput'

local DotProduct, parent = torch.class('nn.DotProduct', 'nn.Module')

function DotProduct:__init()
   parent.__init(self)
   self.gradInput = { torch.Tensor(), torch.Tensor() }
end

-- Called from rowsOf: level 4 (the check, rowsOf, the pass, its caller).
local checkPair = tableinput.pair('nn.DotProduct', { shown = ' {x1, x2}', level = 4 })

-- The pair as N x D rows.
local function rowsOf(input)
   checkPair(input)
   local x1, x2 = input[1], input[2]
   if not x1:isSameSizeAs(x2) or (x1:dim() ~= 1 and x1:dim() ~= 2) then
      error('nn.DotProduct: x1 and x2 must be vectors or matrices of the same size', 3)
   end
   if x1:dim() == 1 then
      return x1:view(1, -1), x2:view(1, -1)
   end
   return x1, x2
end

function DotProduct:updateOutput(input)
   local x1, x2 = rowsOf(input)
   self.output:resize(x1:size(1)):copy(torch.cmul(x1, x2):sum(2))
   return self.output
end

-- d(x1 . x2)/dx1 = x2 and d/dx2 = x1, each row scaled by its gradOutput.
function DotProduct:updateGradInput(input, gradOutput)
   local x1, x2 = rowsOf(input)
   for i = 1, 2 do
      if not self.gradInput[i] or self.gradInput[i]:type() ~= x1:type() then self.gradInput[i] = x1.new() end
   end
   local go = gradOutput:contiguous():view(-1, 1):expandAs(x1)
   self.gradInput[1]:resizeAs(x1):cmul(x2, go)
   self.gradInput[2]:resizeAs(x2):cmul(x1, go)
   if input[1]:dim() == 1 then
      self.gradInput[1]:resizeAs(input[1])
      self.gradInput[2]:resizeAs(input[2])
   end
   return self.gradInput
end

return DotProduct
