-- nn.Sum([dimension, nInputDims, sizeAverage, squeeze]): the sum (the mean with sizeAverage) of
-- the input along `dimension` (default 1; negative counts from the last). With nInputDims, an
-- input of nInputDims + 1 dimensions is a batch and the dimension moves by one. The summed
-- dimension is removed unless squeeze is false (it is kept with size 1).

local Sum, parent = torch.class('nn.Sum', 'nn.Module')

function Sum:__init(dimension, nInputDims, sizeAverage, squeeze)
   parent.__init(self)
   self.dimension = dimension or 1
   self.nInputDims = nInputDims
   self.sizeAverage = sizeAverage or false
   if squeeze ~= nil then
      assert(type(squeeze) == 'boolean', 'nn.Sum: squeeze must be true or false')
      self.squeeze = squeeze
   else
      self.squeeze = true
   end
end

function Sum:_getPositiveDimension(input)
   local dimension = self.dimension
   if dimension < 0 then
      dimension = input:dim() + dimension + 1
   elseif self.nInputDims and input:dim() == self.nInputDims + 1 then
      dimension = dimension + 1
   end
   assert(input:dim() >= dimension, torch.type(self) .. ': the dimension exceeds the input dimensions')
   return dimension
end

function Sum:updateOutput(input)
   local dimension = self:_getPositiveDimension(input)
   if type(self.output) == 'number' then self.output = input.new() end
   self.output:sum(input, dimension)
   if self.sizeAverage then self.output:div(input:size(dimension)) end
   if (self.squeeze == nil or self.squeeze) and self.output:dim() > 1 then
      self.output:set(self.output:select(dimension, 1))
   end
   return self.output
end

function Sum:updateGradInput(input, gradOutput)
   local dimension = self:_getPositiveDimension(input)
   local size = input:size()
   size[dimension] = 1
   local g = gradOutput:contiguous():view(size)
   -- A real copy: an expanded (zero-stride) gradInput would upset the BLAS calls downstream.
   self.gradInput:resizeAs(input):copy(g:expandAs(input))
   if self.sizeAverage then self.gradInput:div(input:size(dimension)) end
   return self.gradInput
end

function Sum:clearState()
   nn.utils.clear(self, '_gradOutput')
   return parent.clearState(self)
end

return Sum
