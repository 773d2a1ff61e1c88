-- nn.SpatialConvolution(nInputPlane, nOutputPlane, kW, kH[, dW, dH, padW, padH]): a 2-D
-- convolution over C x H x W images (or a batch N x C x H x W), as one matrix product per image
-- over its columns (im2col). The weight is nOutputPlane x nInputPlane x kH x kW.

local convolution = require 'nn.engine.convolution'

local SpatialConvolution, parent = torch.class('nn.SpatialConvolution', 'nn.Module')

function SpatialConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
   parent.__init(self)
   dW = dW or 1
   dH = dH or 1
   self.nInputPlane = nInputPlane
   self.nOutputPlane = nOutputPlane
   self.kW = kW
   self.kH = kH
   self.dW = dW
   self.dH = dH
   self.padW = padW or 0
   self.padH = padH or self.padW
   self.weight = torch.Tensor(nOutputPlane, nInputPlane, kH, kW)
   self.bias = torch.Tensor(nOutputPlane)
   self.gradWeight = torch.Tensor(nOutputPlane, nInputPlane, kH, kW)
   self.gradBias = torch.Tensor(nOutputPlane)
   self:reset()
end

function SpatialConvolution:noBias()
   self.bias = nil
   self.gradBias = nil
   return self
end

function SpatialConvolution:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
end

-- Older saved models name the padding `padding`.
function SpatialConvolution:backCompatibility()
   if self.padding then
      self.padW = self.padding
      self.padH = self.padding
      self.padding = nil
   end
   self.padW = self.padW or 0
   self.padH = self.padH or 0
end

-- The geometry for the shared convolution passes (nn.engine.convolution): kernel, step,
-- padding, dilation in the tensor's order (height, width).
function SpatialConvolution:convSpec()
   self:backCompatibility()
   return {
      n = 2, nIn = self.nInputPlane, k = { self.kH, self.kW }, d = { self.dH, self.dW },
      pad = { self.padH, self.padW }, dil = { self.dilationH or 1, self.dilationW or 1 },
   }
end

-- The weight (or its gradient) as one nOutputPlane x (nInputPlane*kH*kW) matrix.
function SpatialConvolution:convWeights(w)
   return { w:view(self.nOutputPlane, -1) }
end

function SpatialConvolution:updateOutput(input)
   return convolution.moduleForward(self, input)
end

function SpatialConvolution:updateGradInput(input, gradOutput)
   return convolution.moduleGradInput(self, input, gradOutput)
end

function SpatialConvolution:accGradParameters(input, gradOutput, scale)
   return convolution.moduleAccGrad(self, input, gradOutput, scale)
end

function SpatialConvolution:type(type, tensorCache)
   self.finput = self.finput and torch.Tensor()
   self.fgradInput = self.fgradInput and torch.Tensor()
   return parent.type(self, type, tensorCache)
end

function SpatialConvolution:__tostring__()
   local s = string.format('%s(%d -> %d, %dx%d', torch.type(self), self.nInputPlane, self.nOutputPlane, self.kW,
      self.kH)
   if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
      s = s .. string.format(', %d,%d', self.dW, self.dH)
   end
   if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
      s = s .. ', ' .. self.padW .. ',' .. self.padH
   end
   if self.bias then
      return s .. ')'
   end
   return s .. ') without bias'
end

function SpatialConvolution:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
   return parent.clearState(self)
end

return SpatialConvolution
