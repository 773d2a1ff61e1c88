-- nn.SpatialConvolutionMM(nInputPlane, nOutputPlane, kW, kH[, dW, dH, padW, padH]): the 2-D
-- convolution of nn.SpatialConvolution, its weight kept as one nOutputPlane x
-- (nInputPlane*kH*kW) matrix (the layout the original's matrix-product version saved).

require 'nn.SpatialConvolution'
local SpatialConvolutionMM, parent = torch.class('nn.SpatialConvolutionMM', 'nn.SpatialConvolution')

function SpatialConvolutionMM:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
   parent.__init(self, nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
   self.weight = self.weight:view(nOutputPlane, nInputPlane * kH * kW)
   self.gradWeight = self.gradWeight:view(nOutputPlane, nInputPlane * kH * kW)
end

return SpatialConvolutionMM
