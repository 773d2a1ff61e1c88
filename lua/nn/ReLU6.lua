-- nn.ReLU6([inplace]): y = min(max(x, 0), 6). The gradient passes where 0 < x < 6. In place, the
-- input becomes the output and gradOutput the gradInput.

local ReLU6, parent = torch.class('nn.ReLU6', 'nn.Module')

function ReLU6:__init(inplace)
   parent.__init(self)
   if inplace ~= nil and type(inplace) ~= 'boolean' then
      error('nn.ReLU6: the in-place flag must be a boolean')
   end
   self.inplace = inplace or false
end

function ReLU6:updateOutput(input)
   if self.inplace then
      input:clamp(0, 6)
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input):clamp(0, 6)
   end
   return self.output
end

-- In place the input holds the output, which is 0 or 6 exactly where the input was outside.
function ReLU6:updateGradInput(input, gradOutput)
   if self.inplace then
      self.gradInput:set(gradOutput)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
   end
   self.gradInput:maskedFill(input:le(0), 0)
   self.gradInput:maskedFill(input:ge(6), 0)
   return self.gradInput
end

return ReLU6
