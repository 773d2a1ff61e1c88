-- nn.SpatialAveragePooling(kW, kH[, dW, dH, padW, padH]): the mean of each kW x kH window moved
-- by dW, dH (default 1) over each plane of C x H x W images (or a batch). :ceil() rounds the
-- output size up; a window is divided by the number of its elements inside the padded image
-- (the default, :setCountIncludePad()) or inside the image (:setCountExcludePad()). Models saved
-- with divide = false get the mean times kW*kH.

local pooling = require 'nn.engine.pooling'

local SpatialAveragePooling, parent = torch.class('nn.SpatialAveragePooling', 'nn.Module')

function SpatialAveragePooling:__init(kW, kH, dW, dH, padW, padH)
   parent.__init(self)
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or 1, dH or 1
   self.padW, self.padH = padW or 0, padH or 0
   self.ceil_mode = false
   self.count_include_pad = true
   self.divide = true
end

function SpatialAveragePooling:ceil()
   self.ceil_mode = true
   return self
end

function SpatialAveragePooling:floor()
   self.ceil_mode = false
   return self
end

function SpatialAveragePooling:setCountIncludePad()
   self.count_include_pad = true
   return self
end

function SpatialAveragePooling:setCountExcludePad()
   self.count_include_pad = false
   return self
end

-- Models saved before padding and ceil mode existed lack the fields.
local function backwardCompatible(self)
   if self.ceil_mode == nil then
      self.ceil_mode = false
      self.count_include_pad = true
      self.padH = 0
      self.padW = 0
   end
end

function SpatialAveragePooling:poolSpec()
   backwardCompatible(self)
   return {
      n = 2, k = { self.kH, self.kW }, d = { self.dH, self.dW }, pad = { self.padH, self.padW },
      ceil = self.ceil_mode, includePad = self.count_include_pad,
   }
end

function SpatialAveragePooling:updateOutput(input)
   pooling.averageForward(self, input, self:poolSpec())
   if not self.divide then self.output:mul(self.kW * self.kH) end
   return self.output
end

function SpatialAveragePooling:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   pooling.averageGradInput(self, input, gradOutput, self:poolSpec())
   if not self.divide then self.gradInput:mul(self.kW * self.kH) end
   return self.gradInput
end

function SpatialAveragePooling:clearState()
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

function SpatialAveragePooling:__tostring__()
   local s = string.format('%s(%dx%d, %d,%d', torch.type(self), self.kW, self.kH, self.dW, self.dH)
   if (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then
      s = s .. ', ' .. self.padW .. ',' .. self.padH
   end
   return s .. ')'
end

return SpatialAveragePooling
