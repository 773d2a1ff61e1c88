-- nn.ELU([alpha, inplace]): y = x for x > 0, alpha * (exp(x) - 1) otherwise (Clevert et al.,
-- "Fast and Accurate Deep Network Learning by Exponential Linear Units"). The gradient is
-- gradOutput where y > 0 and gradOutput * (y + alpha) elsewhere, computed from the output, so that
-- the in-place form (input overwritten by the output) needs nothing else.

local ELU, parent = torch.class('nn.ELU', 'nn.Module')

function ELU:__init(alpha, inplace)
   parent.__init(self)
   self.alpha = alpha or 1
   assert(type(self.alpha) == 'number', 'nn.ELU: alpha must be a number')
   self.inplace = inplace or false
   assert(type(self.inplace) == 'boolean', 'nn.ELU: the in-place flag must be a boolean')
end

function ELU:updateOutput(input)
   local negative = input:le(0)
   local values = input:maskedSelect(negative):exp():add(-1):mul(self.alpha)
   if self.inplace then
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input)
   end
   self.output:maskedCopy(negative, values)
   return self.output
end

function ELU:updateGradInput(input, gradOutput)
   local negative = self.output:le(0)
   local values = self.output:maskedSelect(negative):add(self.alpha):cmul(gradOutput:maskedSelect(negative))
   if self.inplace then
      self.gradInput:set(gradOutput)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   end
   self.gradInput:maskedCopy(negative, values)
   return self.gradInput
end

function ELU:__tostring__()
   return string.format('%s (alpha:%f)', torch.type(self), self.alpha)
end

return ELU
