-- nn.SoftPlus([beta]): y = log(1 + exp(beta x)) / beta, a smooth ReLU (beta defaults to 1). Where
-- beta x exceeds `threshold` (20) y = x, which it equals to double precision, so exp cannot
-- overflow. dy/dx = sigmoid(beta x), obtained from the output as 1 - exp(-beta y).

local SoftPlus, parent = torch.class('nn.SoftPlus', 'nn.Module')

function SoftPlus:__init(beta)
   parent.__init(self)
   self.beta = beta or 1
   self.threshold = 20
end

function SoftPlus:updateOutput(input)
   local beta = self.beta
   self.output:resizeAs(input):copy(input):mul(beta):exp():log1p():div(beta)
   local linear = input.new():resizeAs(input):copy(input):mul(beta):gt(self.threshold)
   self.output:maskedCopy(linear, input:maskedSelect(linear))
   return self.output
end

function SoftPlus:updateGradInput(input, gradOutput)
   local beta = self.beta
   -- 1 - exp(-beta y) = (z - 1) / z with z = exp(beta y)
   self.gradInput:resizeAs(gradOutput):copy(self.output):mul(-beta):exp():mul(-1):add(1):cmul(gradOutput)
   local linear = self.output.new():resizeAs(self.output):copy(self.output):mul(beta):gt(self.threshold)
   self.gradInput:maskedCopy(linear, gradOutput:maskedSelect(linear))
   return self.gradInput
end

return SoftPlus
