-- nn.L1Cost(): sum |x_i| over every element of the input (no target); the gradient is sign(x).

local L1Cost, parent = torch.class('nn.L1Cost', 'nn.Criterion')

function L1Cost:__init()
   parent.__init(self)
end

function L1Cost:updateOutput(input)
   assert(torch.isTensor(input), 'nn.L1Cost: the input must be a tensor')
   self.output = input:norm(1)
   return self.output
end

function L1Cost:updateGradInput(input)
   self.gradInput:resizeAs(input):sign(input)
   return self.gradInput
end

return L1Cost
