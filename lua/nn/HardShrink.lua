-- nn.HardShrink([lambda]): y = x where |x| > lambda, 0 elsewhere (lambda defaults to 0.5).

local HardShrink, parent = torch.class('nn.HardShrink', 'nn.Module')

function HardShrink:__init(lam)
   parent.__init(self)
   self.lambda = lam or 0.5
end

-- Where |x| <= lambda.
local function inside(input, lambda)
   return input:abs():le(lambda)
end

function HardShrink:updateOutput(input)
   self.output:resizeAs(input):copy(input):maskedFill(inside(input, self.lambda), 0)
   return self.output
end

function HardShrink:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(gradOutput):copy(gradOutput):maskedFill(inside(input, self.lambda), 0)
   return self.gradInput
end

return HardShrink
