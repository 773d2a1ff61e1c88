-- nn.SoftMin: softmax(-x) along the dimension nn.SoftMax uses; the gradient is softmax's taken at
-- -x, negated. SoftMax's computations only touch output and gradInput, so they are borrowed.

require 'nn.SoftMax'
local SoftMin, parent = torch.class('nn.SoftMin', 'nn.Module')

function SoftMin:updateOutput(input)
   self.mininput = self.mininput or input.new()
   self.mininput:resizeAs(input):copy(input):mul(-1)
   return nn.SoftMax.updateOutput(self, self.mininput)
end

function SoftMin:updateGradInput(input, gradOutput)
   self.mininput = self.mininput or input.new()
   self.mininput:resizeAs(input):copy(input):mul(-1)
   nn.SoftMax.updateGradInput(self, self.mininput, gradOutput)
   self.gradInput:mul(-1)
   return self.gradInput
end

function SoftMin:clearState()
   if self.mininput then self.mininput:set() end
   return parent.clearState(self)
end

return SoftMin
