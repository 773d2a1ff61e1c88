-- nn.MulConstant(c[, inplace]): y = c x. In place, the input becomes the output and gradOutput
-- the gradInput; the backward pass divides the input by c again.

local MulConstant, parent = torch.class('nn.MulConstant', 'nn.Module')

function MulConstant:__init(constant_scalar, ip)
   parent.__init(self)
   assert(type(constant_scalar) == 'number', 'nn.MulConstant: the constant must be a number')
   self.constant_scalar = constant_scalar
   self.inplace = ip or false
   if ip and type(ip) ~= 'boolean' then
      error('nn.MulConstant: the in-place flag must be a boolean')
   end
end

function MulConstant:updateOutput(input)
   if self.inplace then
      input:mul(self.constant_scalar)
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input):mul(self.constant_scalar)
   end
   return self.output
end

function MulConstant:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   if self.inplace then
      gradOutput:mul(self.constant_scalar)
      self.gradInput:set(gradOutput)
      input:div(self.constant_scalar)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput):mul(self.constant_scalar)
   end
   return self.gradInput
end

return MulConstant
