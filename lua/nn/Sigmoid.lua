-- nn.Sigmoid: y = 1 / (1 + exp(-x)); dy/dx = y (1 - y).

local Sigmoid = torch.class('nn.Sigmoid', 'nn.Module')

function Sigmoid:updateOutput(input)
   self.output:resizeAs(input):sigmoid(input)
   return self.output
end

function Sigmoid:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(self.output):copy(self.output):mul(-1):add(1):cmul(self.output):cmul(gradOutput)
   return self.gradInput
end

return Sigmoid
