-- nn.SplitTable(dimension[, nInputDims]): a tensor split along `dimension` (negative: counted from
-- the last) into the table of its slices (views, one dimension fewer). With nInputDims given, an
-- input of nInputDims + 1 dimensions is taken as a batch and the split moves one dimension down.

local SplitTable, parent = torch.class('nn.SplitTable', 'nn.Module')

function SplitTable:__init(dimension, nInputDims)
   parent.__init(self)
   assert(type(dimension) == 'number', 'nn.SplitTable: a dimension is expected')
   self.dimension = dimension
   self.nInputDims = nInputDims
end

function SplitTable:_getPositiveDimension(input)
   local dimension = self.dimension
   if dimension < 0 then
      dimension = input:dim() + dimension + 1
   elseif self.nInputDims and input:dim() == self.nInputDims + 1 then
      dimension = dimension + 1
   end
   return dimension
end

local function checkedDimension(self, input)
   if not torch.isTensor(input) then
      error('nn.SplitTable: the input must be a tensor', 3)
   end
   local dim = self:_getPositiveDimension(input)
   if dim < 1 or dim > input:dim() then
      error(string.format('nn.SplitTable: dimension %d out of range for a %d-D input', dim, input:dim()), 3)
   end
   return dim
end

function SplitTable:updateOutput(input)
   local dim = checkedDimension(self, input)
   local slices = {}
   for i = 1, input:size(dim) do
      slices[i] = input:select(dim, i)
   end
   self.output = slices
   return self.output
end

function SplitTable:updateGradInput(input, gradOutput)
   local dim = checkedDimension(self, input)
   if self.gradInput then
      self.gradInput:resizeAs(input)
      for i = 1, input:size(dim) do
         self.gradInput:select(dim, i):copy(gradOutput[i])
      end
   end
   return self.gradInput
end

return SplitTable
