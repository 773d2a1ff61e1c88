-- nn.SoftSign: y = x / (1 + |x|); dy/dx = 1 / (1 + |x|)^2.

local SoftSign, parent = torch.class('nn.SoftSign', 'nn.Module')

function SoftSign:updateOutput(input)
   self.temp = self.temp or input.new()
   self.temp:resizeAs(input):abs(input):add(1)
   self.output:resizeAs(input):cdiv(input, self.temp)
   return self.output
end

function SoftSign:updateGradInput(input, gradOutput)
   self.tempgrad = self.tempgrad or input.new()
   self.tempgrad:resizeAs(input):abs(input):add(1)
   self.tempgrad:cmul(self.tempgrad)
   self.gradInput:resizeAs(gradOutput):cdiv(gradOutput, self.tempgrad)
   return self.gradInput
end

function SoftSign:clearState()
   nn.utils.clear(self, 'temp', 'tempgrad')
   return parent.clearState(self)
end

return SoftSign
