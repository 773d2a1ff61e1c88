-- nn.CMinTable(): the element-wise minimum of a table of tensors of the same size. Each element's
-- gradient goes to the input that held the minimum (the first one, on ties).

local tableinput = require 'nn.engine.tableinput'

local CMinTable, parent = torch.class('nn.CMinTable', 'nn.Module')

function CMinTable:__init()
   parent.__init(self)
   self.gradInput = {}
   -- Which input gave each element of the output.
   self.minIdx = torch.Tensor()
   -- Unused here; the original's code needs them, so that our saved modules run there.
   self.mask = torch.Tensor()
   self.minVals = torch.Tensor()
   self.gradMaxVals = torch.Tensor()
end

local checkTable = tableinput.tensors('nn.CMinTable', { sameSize = true })

function CMinTable:updateOutput(input)
   checkTable(input)
   if self.minIdx:type() ~= input[1]:type() then self.minIdx = input[1].new() end
   self.output:resizeAs(input[1]):copy(input[1])
   self.minIdx:resizeAs(input[1]):fill(1)
   for i = 2, #input do
      -- Strictly smaller: the earlier input keeps a tie.
      self.minIdx:maskedFill(input[i]:lt(self.output), i)
      self.output:cmin(input[i])
   end
   return self.output
end

-- gradOutput may have any shape with the output's element count (it is read in order).
function CMinTable:updateGradInput(input, gradOutput)
   checkTable(input)
   if not gradOutput:isSameSizeAs(self.output) then gradOutput = gradOutput:contiguous():view(self.output:size()) end
   for i = 1, #input do
      self.gradInput[i] = self.gradInput[i] or input[i].new()
      self.gradInput[i]:resizeAs(input[i]):eq(self.minIdx, i):cmul(gradOutput)
   end
   for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
   return self.gradInput
end

return CMinTable
