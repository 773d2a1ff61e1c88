-- nn.Square: y = x^2; dy/dx = 2x.

local Square = torch.class('nn.Square', 'nn.Module')

function Square:updateOutput(input)
   self.output:resizeAs(input):cmul(input, input)
   return self.output
end

function Square:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input):cmul(input, gradOutput):mul(2)
   return self.gradInput
end

return Square
