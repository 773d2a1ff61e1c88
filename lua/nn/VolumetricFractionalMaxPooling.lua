-- nn.VolumetricFractionalMaxPooling(poolSizeT, poolSizeW, poolSizeH, outT, outW, outH) or
-- (poolSizeT, poolSizeW, poolSizeH, ratioT, ratioW, ratioH): fractional max pooling (see
-- nn.SpatialFractionalMaxPooling) in three dimensions. As in the original, the input is
-- C x H x W x T (or a batch of those): height, width, then time.

local pooling = require 'nn.engine.pooling'

local VolumetricFractionalMaxPooling, parent = torch.class('nn.VolumetricFractionalMaxPooling', 'nn.Module')

function VolumetricFractionalMaxPooling:__init(poolSizeT, poolSizeW, poolSizeH, arg1, arg2, arg3)
   parent.__init(self)
   assert(poolSizeT >= 2 and poolSizeW >= 2 and poolSizeH >= 2,
      'nn.VolumetricFractionalMaxPooling: pool sizes must be at least 2')
   self.poolSizeT = poolSizeT
   self.poolSizeW = poolSizeW
   self.poolSizeH = poolSizeH
   self.randomSamples = nil
   self.newRandomPool = false
   if arg1 >= 1 and arg2 >= 1 and arg3 >= 1 then
      self.outT, self.outW, self.outH = arg1, arg2, arg3
   else
      self.ratioT, self.ratioW, self.ratioH = arg1, arg2, arg3
      for _, r in ipairs { arg1, arg2, arg3 } do
         assert(r > 0 and r < 1, 'nn.VolumetricFractionalMaxPooling: ratios must be in (0, 1)')
      end
   end
end

function VolumetricFractionalMaxPooling:getOutputSizes_(input)
   if self.ratioT and self.ratioW and self.ratioH then
      local d = input:dim()
      if d ~= 4 and d ~= 5 then error('nn.VolumetricFractionalMaxPooling: input must be 4D or 5D') end
      local outT = math.floor(input:size(d) * self.ratioT)
      local outW = math.floor(input:size(d - 1) * self.ratioW)
      local outH = math.floor(input:size(d - 2) * self.ratioH)
      assert(outT > 0 and outW > 0 and outH > 0,
         'nn.VolumetricFractionalMaxPooling: reduction ratio or input too small')
      return outT, outW, outH
   end
   return self.outT, self.outW, self.outH
end

function VolumetricFractionalMaxPooling:fixPoolingRegions(val)
   if val == nil then val = true end
   self.newRandomPool = val
   return self
end

function VolumetricFractionalMaxPooling:updateOutput(input)
   local outT, outW, outH = self:getOutputSizes_(input)
   -- Sample columns: 1 time, 2 width, 3 height.
   return pooling.fractionalForward(self, input, 3, { self.poolSizeH, self.poolSizeW, self.poolSizeT },
      { outH, outW, outT }, { 3, 2, 1 })
end

function VolumetricFractionalMaxPooling:updateGradInput(input, gradOutput)
   assert(self.randomSamples ~= nil, 'nn.VolumetricFractionalMaxPooling: forward must be called first')
   return pooling.maxGradInput(self, input, gradOutput, 3)
end

function VolumetricFractionalMaxPooling:empty()
   self:clearState()
end

function VolumetricFractionalMaxPooling:clearState()
   self.indices = nil
   self.randomSamples = nil
   self._buffer = nil
   return parent.clearState(self)
end

function VolumetricFractionalMaxPooling:__tostring__()
   return string.format('%s(%dx%dx%d, %d,%d,%d)', torch.type(self), self.outT or self.ratioT,
      self.outW or self.ratioW, self.outH or self.ratioH, self.poolSizeT, self.poolSizeW, self.poolSizeH)
end

return VolumetricFractionalMaxPooling
