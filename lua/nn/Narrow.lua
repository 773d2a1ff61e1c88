-- nn.Narrow(dimension, offset[, length]): input:narrow(dimension, offset, length), copied (length
-- defaults to 1). A negative dimension counts from the last; a negative length counts from the end
-- (-1 reaches the last element); a negative offset, as in the original, takes the first
-- size - length elements.

local Narrow, parent = torch.class('nn.Narrow', 'nn.Module')

function Narrow:__init(dimension, offset, length)
   parent.__init(self)
   if not dimension or not offset then
      error('nn.Narrow(dimension, offset, length): the dimension and offset are expected')
   end
   self.dimension = dimension
   self.index = offset
   self.length = length or 1
end

-- The dimension, first index and length for `input`.
local function window(self, input)
   local dim = self.dimension < 0 and input:dim() + self.dimension + 1 or self.dimension
   local length = self.length
   if length < 0 then
      length = input:size(dim) - self.index + self.length + 2
   end
   local index = self.index
   if index < 0 then
      index = 1
      length = input:size(dim) - length
   end
   return dim, index, length
end

function Narrow:updateOutput(input)
   local output = input:narrow(window(self, input))
   self.output = self.output:typeAs(output)
   self.output:resizeAs(output):copy(output)
   return self.output
end

function Narrow:updateGradInput(input, gradOutput)
   self.gradInput = self.gradInput:typeAs(input)
   self.gradInput:resizeAs(input):zero()
   self.gradInput:narrow(window(self, input)):copy(gradOutput)
   return self.gradInput
end

return Narrow
