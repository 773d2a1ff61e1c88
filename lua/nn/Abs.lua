-- nn.Abs: y = |x|; the gradient is gradOutput where x >= 0 and -gradOutput where x < 0.

local Abs = torch.class('nn.Abs', 'nn.Module')

function Abs:updateOutput(input)
   self.output:resizeAs(input):abs(input)
   return self.output
end

function Abs:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   local negative = input:lt(0)
   self.gradInput:maskedCopy(negative, gradOutput:maskedSelect(negative):neg())
   return self.gradInput
end

return Abs
