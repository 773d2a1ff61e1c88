-- nn.Min(dimension[, nInputDims]): the smallest element along a dimension (which is removed);
-- nn.Max's logic with torch.min.

require 'nn.Max'
local Min, parent = torch.class('nn.Min', 'nn.Module')

function Min:__init(dimension, nInputDims)
   parent.__init(self)
   self.dimension = dimension or 1
   self.nInputDims = nInputDims
end

Min._getPositiveDimension = nn.Max._getPositiveDimension
Min.updateOutput = nn.Max.updateOutput
Min.updateGradInput = nn.Max.updateGradInput
Min.type = nn.Max.type
Min.clearState = nn.Max.clearState

function Min:_lower(input, dimension)
   return torch.min(input, dimension)
end

return Min
