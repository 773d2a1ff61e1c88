-- nn.SpatialMaxPooling(kW, kH[, dW, dH, padW, padH]): the largest value of each kW x kH window
-- moved by dW, dH over each plane of C x H x W images (or a batch); :ceil() rounds the output
-- size up, :floor() down (the default). Padding counts as minus infinity. `indices` keeps where
-- each maximum was (its 1-based position in the H x W plane), for the backward pass and for
-- nn.SpatialMaxUnpooling.

local pooling = require 'nn.engine.pooling'

local SpatialMaxPooling, parent = torch.class('nn.SpatialMaxPooling', 'nn.Module')

function SpatialMaxPooling:__init(kW, kH, dW, dH, padW, padH)
   parent.__init(self)
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or kW, dH or kH
   self.padW, self.padH = padW or 0, padH or 0
   self.ceil_mode = false
   self.indices = torch.LongTensor()
end

function SpatialMaxPooling:ceil()
   self.ceil_mode = true
   return self
end

function SpatialMaxPooling:floor()
   self.ceil_mode = false
   return self
end

function SpatialMaxPooling:poolSpec()
   return {
      n = 2, k = { self.kH, self.kW }, d = { self.dH, self.dW }, pad = { self.padH or 0, self.padW or 0 },
      dil = { self.dilationH or 1, self.dilationW or 1 }, ceil = self.ceil_mode or false,
   }
end

function SpatialMaxPooling:updateOutput(input)
   -- The input's shape is checked (and named in the error) before its sizes are read.
   local output = pooling.maxForward(self, input, self:poolSpec())
   self.iheight, self.iwidth = input:size(input:dim() - 1), input:size(input:dim())
   return output
end

function SpatialMaxPooling:updateGradInput(input, gradOutput)
   return pooling.maxGradInput(self, input, gradOutput, 2)
end

function SpatialMaxPooling:empty()
   self:clearState()
end

function SpatialMaxPooling:__tostring__()
   local s = string.format('%s(%dx%d, %d,%d', torch.type(self), self.kW, self.kH, self.dW, self.dH)
   if (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then
      s = s .. ', ' .. self.padW .. ',' .. self.padH
   end
   if self.dilationW then
      s = s .. ', ' .. self.dilationW .. ',' .. self.dilationH
   end
   return s .. ')'
end

function SpatialMaxPooling:clearState()
   if self.indices then self.indices:set() end
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

return SpatialMaxPooling
