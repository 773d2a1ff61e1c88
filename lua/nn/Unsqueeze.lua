-- nn.Unsqueeze(pos[, numInputDims]): the input with a dimension of size 1 inserted at `pos`. With
-- numInputDims, the dimensions before the last numInputDims are a batch and pos counts after
-- them.

local Unsqueeze, parent = torch.class('nn.Unsqueeze', 'nn.Module')

function Unsqueeze:__init(pos, numInputDims)
   parent.__init(self)
   self.pos = pos or error('nn.Unsqueeze: the position of the new dimension is expected')
   self:setNumInputDims(numInputDims)
end

function Unsqueeze:setNumInputDims(numInputDims)
   self.numInputDims = numInputDims
   return self
end

function Unsqueeze:_getActualPosition(input)
   local inputDim = input:dim()
   self.numInputDims = self.numInputDims or inputDim
   local offsetDim = inputDim - self.numInputDims
   assert(offsetDim >= 0, 'nn.Unsqueeze: numInputDims must be at most the input\'s number of dimensions')
   local actualPos = self.pos + offsetDim
   assert(actualPos >= 1 and actualPos <= inputDim + 1, string.format(
      'nn.Unsqueeze: invalid position %d for an input of %d dimensions (numInputDims %d)', self.pos, inputDim,
      self.numInputDims))
   return actualPos
end

function Unsqueeze:updateOutput(input)
   assert(torch.isTensor(input), 'nn.Unsqueeze: the input must be a tensor')
   nn.utils.addSingletonDimension(self.output, input, self:_getActualPosition(input))
   return self.output
end

function Unsqueeze:updateGradInput(input, gradOutput)
   assert(input:nElement() == gradOutput:nElement(), 'nn.Unsqueeze: gradOutput does not match the input')
   self.gradInput:set(gradOutput:contiguous():view(input:size()))
   return self.gradInput
end

function Unsqueeze:__tostring__()
   return torch.type(self) .. '(dim ' .. self.pos .. ')'
end

return Unsqueeze
