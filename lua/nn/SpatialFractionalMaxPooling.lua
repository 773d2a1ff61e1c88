-- nn.SpatialFractionalMaxPooling(poolSizeW, poolSizeH, outW, outH) or
-- nn.SpatialFractionalMaxPooling(poolSizeW, poolSizeH, ratioW, ratioH): fractional max pooling
-- (Graham, "Fractional Max-Pooling", pseudorandom windows) of poolSizeH x poolSizeW windows,
-- giving outH x outW, or floor(H * ratioH) x floor(W * ratioW) with ratios in (0, 1). The
-- windows are drawn anew at each forward unless :fixPoolingRegions() is called.

local pooling = require 'nn.engine.pooling'

local SpatialFractionalMaxPooling, parent = torch.class('nn.SpatialFractionalMaxPooling', 'nn.Module')

function SpatialFractionalMaxPooling:__init(poolSizeW, poolSizeH, arg1, arg2)
   parent.__init(self)
   assert(poolSizeW >= 2 and poolSizeH >= 2, 'nn.SpatialFractionalMaxPooling: pool sizes must be at least 2')
   self.poolSizeW = poolSizeW
   self.poolSizeH = poolSizeH
   -- One sample per (batch element, plane, dimension) places the windows.
   self.randomSamples = nil
   -- When true, the samples are kept from one forward to the next.
   self.newRandomPool = false
   if arg1 >= 1 and arg2 >= 1 then
      self.outW = arg1
      self.outH = arg2
   else
      self.ratioW = arg1
      self.ratioH = arg2
      assert(self.ratioW > 0 and self.ratioW < 1 and self.ratioH > 0 and self.ratioH < 1,
         'nn.SpatialFractionalMaxPooling: ratios must be in (0, 1)')
   end
end

function SpatialFractionalMaxPooling:getOutputSizes_(input)
   if self.ratioW and self.ratioH then
      local d = input:dim()
      if d ~= 3 and d ~= 4 then error('nn.SpatialFractionalMaxPooling: input must be 3D or 4D') end
      local outW = math.floor(input:size(d) * self.ratioW)
      local outH = math.floor(input:size(d - 1) * self.ratioH)
      assert(outW > 0, 'nn.SpatialFractionalMaxPooling: reduction ratio or input width too small')
      assert(outH > 0, 'nn.SpatialFractionalMaxPooling: reduction ratio or input height too small')
      return outW, outH
   end
   return self.outW, self.outH
end

-- Keeps (val true or nil) or stops keeping the pooling windows between forwards.
function SpatialFractionalMaxPooling:fixPoolingRegions(val)
   if val == nil then val = true end
   self.newRandomPool = val
   return self
end

function SpatialFractionalMaxPooling:updateOutput(input)
   local outW, outH = self:getOutputSizes_(input)
   -- Sample column 1 places the columns, column 2 the rows.
   return pooling.fractionalForward(self, input, 2, { self.poolSizeH, self.poolSizeW }, { outH, outW }, { 2, 1 })
end

function SpatialFractionalMaxPooling:updateGradInput(input, gradOutput)
   assert(self.randomSamples ~= nil, 'nn.SpatialFractionalMaxPooling: forward must be called first')
   return pooling.maxGradInput(self, input, gradOutput, 2)
end

function SpatialFractionalMaxPooling:empty()
   self:clearState()
end

function SpatialFractionalMaxPooling:clearState()
   self.indices = nil
   self.randomSamples = nil
   self._buffer = nil
   return parent.clearState(self)
end

function SpatialFractionalMaxPooling:__tostring__()
   return string.format('%s(%dx%d, %d,%d)', torch.type(self), self.outW or self.ratioW, self.outH or self.ratioH,
      self.poolSizeW, self.poolSizeH)
end

return SpatialFractionalMaxPooling
