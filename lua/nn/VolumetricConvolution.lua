-- nn.VolumetricConvolution(nInputPlane, nOutputPlane, kT, kW, kH[, dT, dW, dH, padT, padW,
-- padH]): a 3-D convolution over C x T x H x W volumes (or a batch N x C x T x H x W), as one
-- matrix product per volume over its columns (nn.engine.convolution). The weight is
-- nOutputPlane x nInputPlane x kT x kH x kW.

local convolution = require 'nn.engine.convolution'

local VolumetricConvolution, parent = torch.class('nn.VolumetricConvolution', 'nn.Module')

function VolumetricConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH)
   parent.__init(self)
   self.nInputPlane = nInputPlane
   self.nOutputPlane = nOutputPlane
   self.kT, self.kW, self.kH = kT, kW, kH
   self.dT, self.dW, self.dH = dT or 1, dW or 1, dH or 1
   self.padT = padT or 0
   self.padW = padW or self.padT
   self.padH = padH or self.padW
   self.weight = torch.Tensor(nOutputPlane, nInputPlane, kT, kH, kW)
   self.bias = torch.Tensor(nOutputPlane)
   self.gradWeight = torch.Tensor(nOutputPlane, nInputPlane, kT, kH, kW)
   self.gradBias = torch.Tensor(nOutputPlane)
   self:reset()
end

function VolumetricConvolution:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kT * self.kW * self.kH * self.nInputPlane)
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
end

function VolumetricConvolution:noBias()
   self.bias = nil
   self.gradBias = nil
   return self
end

function VolumetricConvolution:convSpec()
   return {
      n = 3, nIn = self.nInputPlane, k = { self.kT, self.kH, self.kW }, d = { self.dT, self.dH, self.dW },
      pad = { self.padT or 0, self.padH or 0, self.padW or 0 },
      dil = { self.dilationT or 1, self.dilationH or 1, self.dilationW or 1 },
   }
end

function VolumetricConvolution:convWeights(w)
   return { w:view(self.nOutputPlane, -1) }
end

function VolumetricConvolution:updateOutput(input)
   return convolution.moduleForward(self, input)
end

function VolumetricConvolution:updateGradInput(input, gradOutput)
   return convolution.moduleGradInput(self, input, gradOutput)
end

function VolumetricConvolution:accGradParameters(input, gradOutput, scale)
   return convolution.moduleAccGrad(self, input, gradOutput, scale)
end

function VolumetricConvolution:type(type, tensorCache)
   if self.finput then self.finput:set() end
   if self.fgradInput then self.fgradInput:set() end
   return parent.type(self, type, tensorCache)
end

function VolumetricConvolution:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
   return parent.clearState(self)
end

function VolumetricConvolution:__tostring__()
   local s = string.format('%s(%d -> %d, %dx%dx%d', torch.type(self), self.nInputPlane, self.nOutputPlane, self.kT,
      self.kW, self.kH)
   local padded = self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0
   if self.dT ~= 1 or self.dW ~= 1 or self.dH ~= 1 or padded then
      s = s .. string.format(', %d,%d,%d', self.dT, self.dW, self.dH)
   end
   if padded then
      s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
   end
   if not self.dilationT then return s .. ')' end
   s = s .. ', ' .. self.dilationT .. ',' .. self.dilationW .. ',' .. self.dilationH
   if self.bias then return s .. ')' end
   return s .. ') without bias'
end

return VolumetricConvolution
