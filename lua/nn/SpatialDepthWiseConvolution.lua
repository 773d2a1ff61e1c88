-- nn.SpatialDepthWiseConvolution(nInputPlane, multiplier, kW, kH[, dW, dH, padW, padH]): each
-- input plane convolved on its own with `multiplier` kernels, giving nInputPlane * multiplier
-- output planes; output plane (c-1)*multiplier + j is input plane c through kernel
-- weight[j][c] plus bias[j][c]. The weight is multiplier x (nInputPlane*kH*kW) (a multiplier x
-- nInputPlane x kH x kW tensor is taken too) and the bias multiplier x nInputPlane. The second
-- argument is stored as nOutputPlane, as the original names it.

require 'nn.SpatialConvolution'
local SpatialDepthWiseConvolution, parent =
   torch.class('nn.SpatialDepthWiseConvolution', 'nn.SpatialConvolution')

function SpatialDepthWiseConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
   nn.Module.__init(self)
   self.nInputPlane = nInputPlane
   self.nOutputPlane = nOutputPlane
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or 1, dH or 1
   self.padW = padW or 0
   self.padH = padH or self.padW
   self.weight = torch.Tensor(nOutputPlane, nInputPlane * kH * kW)
   self.bias = torch.Tensor(nOutputPlane, nInputPlane)
   self.gradWeight = torch.Tensor(nOutputPlane, nInputPlane * kH * kW)
   self.gradBias = torch.Tensor(nOutputPlane, nInputPlane)
   self:reset()
end

-- One group per input plane: the multiplier x kH*kW kernels of that plane.
function SpatialDepthWiseConvolution:convWeights(w)
   local w3 = w:view(self.nOutputPlane, self.nInputPlane, self.kH * self.kW)
   local groups = {}
   for c = 1, self.nInputPlane do groups[c] = w3:select(2, c) end
   return groups
end

-- The bias per output plane, in output plane order (input plane major).
function SpatialDepthWiseConvolution:convBias()
   return self.bias:t():contiguous():view(-1)
end

function SpatialDepthWiseConvolution:accBias(sums, scale)
   self.gradBias:add(scale, sums:view(self.nInputPlane, self.nOutputPlane):t())
end

return SpatialDepthWiseConvolution
