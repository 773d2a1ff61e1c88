-- nn.CDivTable(): input[1] / input[2] element-wise, for a table of two tensors of the same size.

local tableinput = require 'nn.engine.tableinput'

local CDivTable, parent = torch.class('nn.CDivTable', 'nn.Module')

function CDivTable:__init()
   parent.__init(self)
   self.gradInput = {}
end

local checkPair = tableinput.pair('nn.CDivTable')

function CDivTable:updateOutput(input)
   checkPair(input)
   self.output:resizeAs(input[1]):copy(input[1]):cdiv(input[2])
   return self.output
end

-- d(a/b)/da = 1/b and d(a/b)/db = -a/b^2.
function CDivTable:updateGradInput(input, gradOutput)
   checkPair(input)
   self.gradInput[1] = self.gradInput[1] or input[1].new()
   self.gradInput[2] = self.gradInput[2] or input[1].new()
   self.gradInput[1]:resizeAs(input[1]):copy(gradOutput):cdiv(input[2])
   self.gradInput[2]:resizeAs(input[2]):copy(self.gradInput[1]):cmul(input[1]):cdiv(input[2]):mul(-1)
   for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
   return self.gradInput
end

return CDivTable
