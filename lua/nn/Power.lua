-- nn.Power(p): y = x^p; dy/dx = p x^(p-1).

local Power, parent = torch.class('nn.Power', 'nn.Module')

function Power:__init(p)
   parent.__init(self)
   if not p then
      error('nn.Power(power): the power is expected')
   end
   self.pow = p
end

function Power:updateOutput(input)
   self.output:resizeAs(input):pow(input, self.pow)
   return self.output
end

function Power:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input):pow(input, self.pow - 1):cmul(gradOutput):mul(self.pow)
   return self.gradInput
end

return Power
