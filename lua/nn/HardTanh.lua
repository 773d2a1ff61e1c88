-- nn.HardTanh([min_value, max_value, inplace]): y = x clamped to [min_value, max_value] (default
-- [-1, 1]). The gradient passes where min_value < x < max_value and is 0 elsewhere, bounds
-- included (so HardTanh(t, math.huge) has the gradient of Threshold(t)). In place, the input
-- becomes the output and gradOutput the gradInput.

local HardTanh, parent = torch.class('nn.HardTanh', 'nn.Module')

function HardTanh:__init(min_value, max_value, inplace)
   parent.__init(self)
   self.min_val = min_value or -1
   self.max_val = max_value or 1
   self.inplace = inplace or false
   if inplace and type(inplace) ~= 'boolean' then
      error(torch.type(self) .. ': the in-place flag must be a boolean')
   end
   assert(self.max_val > self.min_val, torch.type(self) .. ': max_value must be larger than min_value')
end

function HardTanh:updateOutput(input)
   local lo, hi = self.min_val or -1, self.max_val or 1
   if self.inplace then
      input:clamp(lo, hi)
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input):clamp(lo, hi)
   end
   return self.output
end

-- In place the input holds the clamped values, which sit on a bound exactly where the input
-- was at or beyond it, so the same test serves both cases.
function HardTanh:updateGradInput(input, gradOutput)
   local lo, hi = self.min_val or -1, self.max_val or 1
   if self.inplace then
      self.gradInput:set(gradOutput)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   end
   self.gradInput:maskedFill(input:le(lo), 0)
   self.gradInput:maskedFill(input:ge(hi), 0)
   return self.gradInput
end

return HardTanh
