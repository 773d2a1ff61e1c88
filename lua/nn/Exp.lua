-- nn.Exp: y = exp(x); dy/dx = y.

local Exp = torch.class('nn.Exp', 'nn.Module')

function Exp:updateOutput(input)
   self.output:resizeAs(input):exp(input)
   return self.output
end

function Exp:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):cmul(self.output, gradOutput)
   return self.gradInput
end

return Exp
