-- nn.GradientReversal([lambda]): the identity forwards; backwards the gradient is multiplied by
-- -lambda (default 1), as in domain-adversarial training (Ganin & Lempitsky).

local GradientReversal, parent = torch.class('nn.GradientReversal', 'nn.Module')

GradientReversal.__version = 2

function GradientReversal:__init(lambda)
   parent.__init(self)
   self.lambda = lambda or 1
end

function GradientReversal:setLambda(lambda)
   self.lambda = lambda
end

function GradientReversal:updateOutput(input)
   self.output:set(input)
   return self.output
end

function GradientReversal:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):copy(gradOutput):mul(-self.lambda)
   return self.gradInput
end

-- Modules saved before lambda existed reverse with lambda 1.
function GradientReversal:read(file)
   local object = file:readObject()
   for k, v in pairs(object) do self[k] = v end
   self.lambda = self.lambda or 1
end

return GradientReversal
