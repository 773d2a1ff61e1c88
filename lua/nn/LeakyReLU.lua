-- nn.LeakyReLU([negval, inplace]): y = x for x > 0, negval * x otherwise (negval defaults to
-- 1/100). In place, the input becomes the output and gradOutput the gradInput; a negative negval
-- turns in-place off, since the output's sign would no longer say where the input was negative.

local LeakyReLU, parent = torch.class('nn.LeakyReLU', 'nn.Module')

function LeakyReLU:__init(negval, ip)
   parent.__init(self)
   if type(negval) == 'boolean' then
      -- LeakyReLU(true): in place with the default slope.
      ip = negval
      negval = nil
   end
   self.negval = negval or 1 / 100
   self.inplace = ip or false
   if self.negval < 0 then
      self.inplace = false
   end
end

-- Scales `t` by negval where `mask` is set.
local function scaleWhere(t, mask, negval)
   t:maskedCopy(mask, t:maskedSelect(mask):mul(negval))
end

function LeakyReLU:updateOutput(input)
   local negative = input:le(0)
   if self.inplace then
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input)
   end
   scaleWhere(self.output, negative, self.negval)
   return self.output
end

function LeakyReLU:updateGradInput(input, gradOutput)
   if self.inplace then
      self.gradInput:set(gradOutput)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   end
   scaleWhere(self.gradInput, input:le(0), self.negval)
   return self.gradInput
end

function LeakyReLU:__tostring__()
   return torch.type(self) .. string.format('(%g)', self.negval)
end

return LeakyReLU
