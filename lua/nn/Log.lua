-- nn.Log: y = log(x); dy/dx = 1 / x.

local Log = torch.class('nn.Log', 'nn.Module')

function Log:updateOutput(input)
   self.output:resizeAs(input):log(input)
   return self.output
end

function Log:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):cdiv(gradOutput, input)
   return self.gradInput
end

return Log
