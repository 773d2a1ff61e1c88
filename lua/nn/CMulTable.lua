-- nn.CMulTable(): the element-wise product of a table of tensors of the same size; the gradient of
-- each is gradOutput times the product of all the others.

local tableinput = require 'nn.engine.tableinput'

local CMulTable, parent = torch.class('nn.CMulTable', 'nn.Module')

function CMulTable:__init()
   parent.__init(self)
   self.gradInput = {}
end

local checkTable = tableinput.tensors('nn.CMulTable')

function CMulTable:updateOutput(input)
   checkTable(input)
   self.output:resizeAs(input[1]):copy(input[1])
   for i = 2, #input do
      self.output:cmul(input[i])
   end
   return self.output
end

-- The product of the others is formed directly (not as output / input[i]) so that zeros in the
-- input give the right gradient.
function CMulTable:updateGradInput(input, gradOutput)
   checkTable(input)
   for i = 1, #input do
      self.gradInput[i] = self.gradInput[i] or input[1].new()
      self.gradInput[i]:resizeAs(input[i]):copy(gradOutput)
      for j = 1, #input do
         if j ~= i then self.gradInput[i]:cmul(input[j]) end
      end
   end
   for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
   return self.gradInput
end

return CMulTable
