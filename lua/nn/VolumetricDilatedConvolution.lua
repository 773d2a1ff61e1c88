-- nn.VolumetricDilatedConvolution(nInputPlane, nOutputPlane, kT, kW, kH[, dT, dW, dH, padT, padW,
-- padH, dilationT, dilationW, dilationH]): a 3-D convolution whose kernel taps are dilation
-- apart in each dimension.

require 'nn.VolumetricConvolution'
local VolumetricDilatedConvolution, parent =
   torch.class('nn.VolumetricDilatedConvolution', 'nn.VolumetricConvolution')

function VolumetricDilatedConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH,
                                             dilationT, dilationW, dilationH)
   parent.__init(self, nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH)
   self.dilationT = dilationT or 1
   self.dilationW = dilationW or 1
   self.dilationH = dilationH or 1
end

return VolumetricDilatedConvolution
