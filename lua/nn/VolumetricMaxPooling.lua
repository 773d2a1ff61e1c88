-- nn.VolumetricMaxPooling(kT, kW, kH[, dT, dW, dH, padT, padW, padH]): the largest value of each
-- kT x kH x kW window over each plane of C x T x H x W volumes (or a batch); :ceil() rounds
-- the output size up. Padding counts as minus infinity; `indices` keeps each maximum's 1-based
-- position in its T x H x W plane.

local pooling = require 'nn.engine.pooling'

local VolumetricMaxPooling, parent = torch.class('nn.VolumetricMaxPooling', 'nn.Module')

VolumetricMaxPooling.__version = 2

function VolumetricMaxPooling:__init(kT, kW, kH, dT, dW, dH, padT, padW, padH)
   parent.__init(self)
   self.kT, self.kH, self.kW = kT, kH, kW
   self.dT, self.dW, self.dH = dT or kT, dW or kW, dH or kH
   self.padT, self.padW, self.padH = padT or 0, padW or 0, padH or 0
   self.ceil_mode = false
   self.indices = torch.LongTensor()
end

function VolumetricMaxPooling:ceil()
   self.ceil_mode = true
   return self
end

function VolumetricMaxPooling:floor()
   self.ceil_mode = false
   return self
end

function VolumetricMaxPooling:poolSpec()
   return {
      n = 3, k = { self.kT, self.kH, self.kW }, d = { self.dT, self.dH, self.dW },
      pad = { self.padT or 0, self.padH or 0, self.padW or 0 },
      dil = { self.dilationT or 1, self.dilationH or 1, self.dilationW or 1 }, ceil = self.ceil_mode or false,
   }
end

function VolumetricMaxPooling:updateOutput(input)
   local d = input:dim()
   self.itime, self.iheight, self.iwidth = input:size(d - 2), input:size(d - 1), input:size(d)
   return (pooling.maxForward(self, input, self:poolSpec()))
end

function VolumetricMaxPooling:updateGradInput(input, gradOutput)
   return pooling.maxGradInput(self, input, gradOutput, 3)
end

function VolumetricMaxPooling:empty()
   self:clearState()
end

function VolumetricMaxPooling:clearState()
   if self.indices then self.indices:set() end
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

function VolumetricMaxPooling:__tostring__()
   local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self), self.kT, self.kW, self.kH, self.dT, self.dW,
      self.dH)
   if (self.padT or 0) ~= 0 or (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then
      s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
   end
   if self.dilationT then
      s = s .. ', ' .. self.dilationT .. ',' .. self.dilationW .. ',' .. self.dilationH
   end
   return s .. ')'
end

return VolumetricMaxPooling
