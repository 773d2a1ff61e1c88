-- nn.SpatialDilatedMaxPooling(kW, kH[, dW, dH, padW, padH, dilationW, dilationH]): max pooling
-- over windows whose elements are dilationH rows and dilationW columns apart.

require 'nn.SpatialMaxPooling'
local SpatialDilatedMaxPooling, parent = torch.class('nn.SpatialDilatedMaxPooling', 'nn.SpatialMaxPooling')

function SpatialDilatedMaxPooling:__init(kW, kH, dW, dH, padW, padH, dilationW, dilationH)
   parent.__init(self, kW, kH, dW, dH, padW, padH)
   self.dilationW = dilationW or 1
   self.dilationH = dilationH or 1
end

return SpatialDilatedMaxPooling
