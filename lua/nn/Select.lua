-- nn.Select(dimension, index): the slice at `index` along `dimension` (negative values count from
-- the end), a view with that dimension removed.

local Select, parent = torch.class('nn.Select', 'nn.Module')

function Select:__init(dimension, index)
   parent.__init(self)
   self.dimension = dimension
   self.index = index
end

local function place(self, input)
   local dim = self.dimension < 0 and input:dim() + self.dimension + 1 or self.dimension
   local index = self.index < 0 and input:size(dim) + self.index + 1 or self.index
   if dim < 1 or dim > input:dim() then
      error(string.format('nn.Select: dimension %d out of range for a %dD input', self.dimension, input:dim()))
   end
   if index < 1 or index > input:size(dim) then
      error(string.format('nn.Select: index %d out of range (size %d)', self.index, input:size(dim)))
   end
   return dim, index
end

function Select:updateOutput(input)
   local dim, index = place(self, input)
   local output = input:select(dim, index)
   self.output:resizeAs(output)
   return self.output:copy(output)
end

function Select:updateGradInput(input, gradOutput)
   local dim, index = place(self, input)
   self.gradInput:resizeAs(input):zero()
   self.gradInput:select(dim, index):copy(gradOutput)
   return self.gradInput
end

return Select
