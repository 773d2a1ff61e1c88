-- nn.SoftShrink([lambda]): y = x - lambda for x > lambda, x + lambda for x < -lambda, 0 between
-- (lambda defaults to 0.5). The gradient passes where |x| > lambda.

local SoftShrink, parent = torch.class('nn.SoftShrink', 'nn.Module')

function SoftShrink:__init(lam)
   parent.__init(self)
   self.lambda = lam or 0.5
end

function SoftShrink:updateOutput(input)
   local lambda = self.lambda
   -- x - lambda * sign(x), then 0 inside [-lambda, lambda].
   self.output:resizeAs(input):sign(input):mul(-lambda):add(input)
   self.output:maskedFill(input:abs():le(lambda), 0)
   return self.output
end

function SoftShrink:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):copy(gradOutput):maskedFill(input:abs():le(self.lambda), 0)
   return self.gradInput
end

return SoftShrink
