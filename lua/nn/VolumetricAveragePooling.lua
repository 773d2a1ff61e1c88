-- nn.VolumetricAveragePooling(kT, kW, kH[, dT, dW, dH]): the mean of each kT x kH x kW window
-- moved by dT, dH, dW (default: the window size) over each plane of C x T x H x W volumes (or a
-- batch).

local pooling = require 'nn.engine.pooling'

local VolumetricAveragePooling, parent = torch.class('nn.VolumetricAveragePooling', 'nn.Module')

function VolumetricAveragePooling:__init(kT, kW, kH, dT, dW, dH)
   parent.__init(self)
   self.kT, self.kH, self.kW = kT, kH, kW
   self.dT, self.dW, self.dH = dT or kT, dW or kW, dH or kH
end

function VolumetricAveragePooling:poolSpec()
   return {
      n = 3, k = { self.kT, self.kH, self.kW }, d = { self.dT, self.dH, self.dW },
      pad = { self.padT or 0, self.padH or 0, self.padW or 0 }, ceil = false, includePad = true,
   }
end

function VolumetricAveragePooling:updateOutput(input)
   return pooling.averageForward(self, input, self:poolSpec())
end

function VolumetricAveragePooling:updateGradInput(input, gradOutput)
   return pooling.averageGradInput(self, input, gradOutput, self:poolSpec())
end

function VolumetricAveragePooling:empty()
   self:clearState()
end

function VolumetricAveragePooling:clearState()
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

function VolumetricAveragePooling:__tostring__()
   local s = string.format('%s(%dx%dx%d, %d,%d,%d', torch.type(self), self.kT, self.kW, self.kH, self.dT, self.dW,
      self.dH)
   if (self.padT or 0) ~= 0 or (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then
      s = s .. ', ' .. self.padT .. ',' .. self.padW .. ',' .. self.padH
   end
   return s .. ')'
end

return VolumetricAveragePooling
