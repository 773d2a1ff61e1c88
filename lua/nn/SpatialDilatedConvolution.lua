-- nn.SpatialDilatedConvolution(nInputPlane, nOutputPlane, kW, kH[, dW, dH, padW, padH,
-- dilationW, dilationH]): a 2-D convolution whose kernel taps are dilationH rows and dilationW
-- columns apart, so a kW x kH kernel spans dilationW*(kW-1)+1 x dilationH*(kH-1)+1 input pixels.

require 'nn.SpatialConvolution'
local SpatialDilatedConvolution, parent = torch.class('nn.SpatialDilatedConvolution', 'nn.SpatialConvolution')

function SpatialDilatedConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH, dilationW,
                                          dilationH)
   parent.__init(self, nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
   self.dilationW = dilationW or 1
   self.dilationH = dilationH or 1
end

function SpatialDilatedConvolution:__tostring__()
   local s = parent.__tostring__(self)
   local tail = self.bias and ')' or ') without bias'
   return s:sub(1, #s - #tail) .. ', ' .. self.dilationW .. ',' .. self.dilationH .. tail
end

return SpatialDilatedConvolution
