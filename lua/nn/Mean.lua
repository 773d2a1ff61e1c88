-- nn.Mean([dimension, nInputDims]): the mean along a dimension, an nn.Sum with sizeAverage.

require 'nn.Sum'
local Mean, parent = torch.class('nn.Mean', 'nn.Sum')

function Mean:__init(dimension, nInputDims)
   parent.__init(self, dimension, nInputDims, true)
end

return Mean
