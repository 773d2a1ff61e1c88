-- nn.SpatialFullConvolution(nInputPlane, nOutputPlane, kW, kH[, dW, dH, padW, padH, adjW, adjH]):
-- the transposed 2-D convolution (the adjoint of nn.SpatialConvolution, "deconvolution"): each
-- input pixel adds its kernel-weighted copy into a dW, dH spaced output. The output is
--   (H - 1) * dH - 2 * padH + kH + adjH  by  (W - 1) * dW - 2 * padW + kW + adjW.
-- The input may also be {input, target}: the output then takes the target's height and width
-- (adj chosen for it) and the target's gradient is zero. The weight is nInputPlane x
-- nOutputPlane x kH x kW.

local convolution = require 'nn.engine.convolution'

local SpatialFullConvolution, parent = torch.class('nn.SpatialFullConvolution', 'nn.Module')

function SpatialFullConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH, adjW, adjH)
   parent.__init(self)
   self.nInputPlane = nInputPlane
   self.nOutputPlane = nOutputPlane
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or 1, dH or 1
   self.padW, self.padH = padW or 0, padH or 0
   self.adjW, self.adjH = adjW or 0, adjH or 0
   if self.adjW > self.dW - 1 or self.adjH > self.dH - 1 then
      error('nn.SpatialFullConvolution: adjW and adjH must be smaller than dW and dH')
   end
   self.weight = torch.Tensor(nInputPlane, nOutputPlane, kH, kW)
   self.gradWeight = torch.Tensor(nInputPlane, nOutputPlane, kH, kW)
   self.bias = torch.Tensor(nOutputPlane)
   self.gradBias = torch.Tensor(nOutputPlane)
   self:reset()
end

function SpatialFullConvolution:noBias()
   self.bias = nil
   self.gradBias = nil
   return self
end

function SpatialFullConvolution:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
end

function SpatialFullConvolution:convSpec()
   return {
      n = 2, nIn = self.nInputPlane, nOut = self.nOutputPlane, k = { self.kH, self.kW }, d = { self.dH, self.dW },
      pad = { self.padH, self.padW }, dil = { 1, 1 }, adj = { self.adjH or 0, self.adjW or 0 },
   }
end

-- The weight as one nInputPlane x (nOutputPlane*kH*kW) matrix.
function SpatialFullConvolution:convWeights(w)
   return { w:view(self.nInputPlane, -1) }
end

function SpatialFullConvolution:updateOutput(input)
   return convolution.fullForward(self, input)
end

function SpatialFullConvolution:updateGradInput(input, gradOutput)
   return convolution.fullGradInput(self, input, gradOutput)
end

function SpatialFullConvolution:accGradParameters(input, gradOutput, scale)
   return convolution.fullAccGrad(self, input, gradOutput, scale)
end

function SpatialFullConvolution:type(type, tensorCache)
   self.finput = self.finput and torch.Tensor()
   self.fgradInput = self.fgradInput and torch.Tensor()
   return parent.type(self, type, tensorCache)
end

function SpatialFullConvolution:__tostring__()
   local s = string.format('%s(%d -> %d, %dx%d', torch.type(self), self.nInputPlane, self.nOutputPlane, self.kW,
      self.kH)
   if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
      s = s .. string.format(', %d,%d', self.dW, self.dH)
   end
   if self.padW ~= 0 or self.padH ~= 0 then
      s = s .. ', ' .. self.padW .. ',' .. self.padH
   end
   if (self.adjW or 0) ~= 0 or (self.adjH or 0) ~= 0 then
      s = s .. ', ' .. self.adjW .. ',' .. self.adjH
   end
   if self.bias then return s .. ')' end
   return s .. ') without bias'
end

function SpatialFullConvolution:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
   return parent.clearState(self)
end

return SpatialFullConvolution
