-- nn.LogSigmoid: y = log(1 / (1 + exp(-x))), computed as min(x, 0) - log(1 + exp(-|x|)) so that
-- neither sign of a large input overflows; dy/dx = 1 - sigmoid(x) = sigmoid(-x). `buffer` keeps
-- sigmoid(-x) from the forward pass.

local LogSigmoid, parent = torch.class('nn.LogSigmoid', 'nn.Module')

function LogSigmoid:updateOutput(input)
   self.buffer = self.buffer or input.new()
   self.buffer:resizeAs(input):copy(input):neg():sigmoid()
   -- log1p(exp(-|x|))
   local tail = input.new():resizeAs(input):abs(input):neg():exp():log1p()
   self.output:resizeAs(input):copy(input):clamp(-math.huge, 0):add(-1, tail)
   return self.output
end

function LogSigmoid:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):cmul(gradOutput, self.buffer)
   return self.gradInput
end

function LogSigmoid:clearState()
   if self.buffer then self.buffer:set() end
   return parent.clearState(self)
end

return LogSigmoid
