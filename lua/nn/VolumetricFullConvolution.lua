-- nn.VolumetricFullConvolution(nInputPlane, nOutputPlane, kT, kW, kH[, dT, dW, dH, padT, padW,
-- padH, adjT, adjW, adjH]): the transposed 3-D convolution (the adjoint of
-- nn.VolumetricConvolution); each output extent is (in - 1) * d - 2 * pad + k + adj. The input
-- may be {input, target}, the output then taking the target's last three sizes. The weight is
-- nInputPlane x nOutputPlane x kT x kH x kW.

local convolution = require 'nn.engine.convolution'

local VolumetricFullConvolution, parent = torch.class('nn.VolumetricFullConvolution', 'nn.Module')

function VolumetricFullConvolution:__init(nInputPlane, nOutputPlane, kT, kW, kH, dT, dW, dH, padT, padW, padH,
                                          adjT, adjW, adjH)
   parent.__init(self)
   self.nInputPlane = nInputPlane
   self.nOutputPlane = nOutputPlane
   self.kT, self.kW, self.kH = kT, kW, kH
   self.dT, self.dW, self.dH = dT or 1, dW or 1, dH or 1
   self.padT, self.padW, self.padH = padT or 0, padW or 0, padH or 0
   self.adjT, self.adjW, self.adjH = adjT or 0, adjW or 0, adjH or 0
   if self.adjW > self.dW - 1 or self.adjH > self.dH - 1 or self.adjT > self.dT - 1 then
      error('nn.VolumetricFullConvolution: adjT, adjW and adjH must be smaller than dT, dW and dH')
   end
   self.weight = torch.Tensor(nInputPlane, nOutputPlane, kT, kH, kW)
   self.gradWeight = torch.Tensor(nInputPlane, nOutputPlane, kT, kH, kW)
   self.bias = torch.Tensor(nOutputPlane)
   self.gradBias = torch.Tensor(nOutputPlane)
   self:reset()
end

function VolumetricFullConvolution:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.kH * self.kT * self.nInputPlane)
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
end

function VolumetricFullConvolution:noBias()
   self.bias = nil
   self.gradBias = nil
   return self
end

-- Models saved by early versions kept the weight as nOutputPlane x nInputPlane x ... and named
-- the padding pT, pW, pH.
function VolumetricFullConvolution:backCompatibility()
   if not self.adjW then
      self.weight = self.weight:transpose(1, 2):contiguous()
      if self.gradWeight then self.gradWeight = self.gradWeight:transpose(1, 2):contiguous() end
   end
   self.padW = self.padW or self.pW or 0
   self.padH = self.padH or self.pH or 0
   self.padT = self.padT or self.pT or 0
   self.adjW = self.adjW or 0
   self.adjH = self.adjH or 0
   self.adjT = self.adjT or 0
end

function VolumetricFullConvolution:convSpec()
   self:backCompatibility()
   return {
      n = 3, nIn = self.nInputPlane, nOut = self.nOutputPlane, k = { self.kT, self.kH, self.kW },
      d = { self.dT, self.dH, self.dW }, pad = { self.padT, self.padH, self.padW }, dil = { 1, 1, 1 },
      adj = { self.adjT, self.adjH, self.adjW },
   }
end

function VolumetricFullConvolution:convWeights(w)
   return { w:view(self.nInputPlane, -1) }
end

function VolumetricFullConvolution:updateOutput(input)
   return convolution.fullForward(self, input)
end

function VolumetricFullConvolution:updateGradInput(input, gradOutput)
   return convolution.fullGradInput(self, input, gradOutput)
end

function VolumetricFullConvolution:accGradParameters(input, gradOutput, scale)
   return convolution.fullAccGrad(self, input, gradOutput, scale)
end

function VolumetricFullConvolution:type(type, tensorCache)
   self.finput = torch.Tensor()
   self.fgradInput = torch.Tensor()
   return parent.type(self, type, tensorCache)
end

function VolumetricFullConvolution:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
   return parent.clearState(self)
end

function VolumetricFullConvolution:__tostring__()
   local s = string.format('%s(%d -> %d, %dx%dx%d', torch.type(self), self.nInputPlane, self.nOutputPlane, self.kT,
      self.kW, self.kH)
   local padded = self.padT ~= 0 or self.padW ~= 0 or self.padH ~= 0
   if self.dT ~= 1 or self.dW ~= 1 or self.dH ~= 1 or padded then
      s = s .. string.format(', %d,%d,%d', self.dT, self.dW, self.dH)
   end
   if padded then
      s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
   end
   if self.adjT ~= 0 or self.adjW ~= 0 or self.adjH ~= 0 then
      s = s .. ', ' .. self.adjT .. ',' .. self.adjW .. ',' .. self.adjH
   end
   return s .. ')'
end

return VolumetricFullConvolution
