-- nn.L1Penalty(l1weight[, sizeAverage, provideOutput]): passes its input through and adds an L1
-- penalty on it (an activation sparsity term): `loss` = l1weight * sum |x| (divided by the
-- number of elements with sizeAverage), and its gradient l1weight * sign(x) goes back, on top of
-- gradOutput when provideOutput (the default) says the output is used further on.

local L1Penalty, parent = torch.class('nn.L1Penalty', 'nn.Module')

function L1Penalty:__init(l1weight, sizeAverage, provideOutput)
   parent.__init(self)
   self.l1weight = l1weight
   self.sizeAverage = sizeAverage or false
   if provideOutput == nil then
      self.provideOutput = true
   else
      self.provideOutput = provideOutput
   end
end

local function weight(self, input)
   local m = self.l1weight
   if self.sizeAverage == true then m = m / input:nElement() end
   return m
end

function L1Penalty:updateOutput(input)
   self.loss = weight(self, input) * input:norm(1)
   self.output = input
   return self.output
end

function L1Penalty:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input):sign(input):mul(weight(self, input))
   if self.provideOutput == true then
      self.gradInput:add(gradOutput)
   end
   return self.gradInput
end

return L1Penalty
