-- nn.VolumetricDilatedMaxPooling(kT, kW, kH[, dT, dW, dH, padT, padW, padH, dilationT,
-- dilationW, dilationH]): 3-D max pooling over windows whose elements are dilation apart.

require 'nn.VolumetricMaxPooling'
local VolumetricDilatedMaxPooling, parent =
   torch.class('nn.VolumetricDilatedMaxPooling', 'nn.VolumetricMaxPooling')

function VolumetricDilatedMaxPooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH, dilationT, dilationW,
                                            dilationH)
   parent.__init(self, kT, kW, kH, dT, dW, dH, padT, padW, padH)
   self.dilationT = dilationT or 1
   self.dilationW = dilationW or 1
   self.dilationH = dilationH or 1
end

return VolumetricDilatedMaxPooling
