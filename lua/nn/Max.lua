-- nn.Max(dimension[, nInputDims]): the largest element along a dimension (which is removed).
-- With nInputDims, an input with one more dimension is a batch and the dimension shifts by one.

local Max, parent = torch.class('nn.Max', 'nn.Module')

function Max:__init(dimension, nInputDims)
   parent.__init(self)
   dimension = dimension or 1
   self.dimension = dimension
   self.nInputDims = nInputDims
end

function Max:_getPositiveDimension(input)
   local dimension = self.dimension
   if dimension < 0 then
      dimension = input:dim() + dimension + 1
   elseif self.nInputDims and input:dim() == (self.nInputDims + 1) then
      dimension = dimension + 1
   end
   return dimension
end

function Max:_lower(input, dimension)
   return torch.max(input, dimension)
end

function Max:updateOutput(input)
   local dimension = self:_getPositiveDimension(input)
   self._output, self._indices = self:_lower(input, dimension)
   if input:dim() > 1 then
      self.output:set(self._output:select(dimension, 1))
   else
      self.output:set(self._output)
   end
   return self.output
end

function Max:updateGradInput(input, gradOutput)
   local dimension = self:_getPositiveDimension(input)
   local gradOutputView
   if input:dim() > 1 then
      gradOutputView = nn.utils.addSingletonDimension(gradOutput, dimension)
   else
      gradOutputView = gradOutput
   end
   self.gradInput:resizeAs(input):zero():scatter(dimension, self._indices, gradOutputView)
   return self.gradInput
end

function Max:type(type, tensorCache)
   -- The indices stay a LongTensor.
   if type == 'torch.CudaTensor' then
      parent.type(self, type, tensorCache)
   else
      local indices = self._indices
      self._indices = nil
      parent.type(self, type, tensorCache)
      self._indices = indices and indices:long() or nil
   end
   return self
end

function Max:clearState()
   nn.utils.clear(self, '_indices', '_output')
   return parent.clearState(self)
end

return Max
