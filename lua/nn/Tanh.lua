-- nn.Tanh: y = tanh(x); dy/dx = 1 - y^2.

local Tanh = torch.class('nn.Tanh', 'nn.Module')

function Tanh:updateOutput(input)
   self.output:resizeAs(input):tanh(input)
   return self.output
end

function Tanh:updateGradInput(input, gradOutput)
   -- gradInput = gradOutput * (1 - output^2)
   self.gradInput:resizeAs(self.output):copy(self.output):cmul(self.output):mul(-1):add(1):cmul(gradOutput)
   return self.gradInput
end

return Tanh
