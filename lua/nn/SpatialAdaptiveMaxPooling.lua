-- nn.SpatialAdaptiveMaxPooling(W, H): max pooling whose windows adapt to the input so that the
-- output is always H x W: output (i, j) covers rows floor((i-1)*iH/H) to ceil(i*iH/H) - 1 and
-- columns likewise. `indices` keeps each maximum's 1-based position in its plane.

local windows = require 'nn.engine.windows'
local pooling = require 'nn.engine.pooling'

local SpatialAdaptiveMaxPooling, parent = torch.class('nn.SpatialAdaptiveMaxPooling', 'nn.Module')

function SpatialAdaptiveMaxPooling:__init(W, H)
   parent.__init(self)
   self.W = W
   self.H = H
end

function SpatialAdaptiveMaxPooling:updateOutput(input)
   local x, isBatch = windows.batch(input, 2, torch.type(self))
   local N, C, iH, iW = x:size(1), x:size(2), x:size(3), x:size(4)
   local idx = pooling.adaptiveIndex({ iH, iW }, { self.H, self.W })
   self._buffer = self._buffer or x.new()
   local values, positions = pooling.max(pooling.planes(x, 2), idx, self._buffer)
   self.output:resize(N, C, self.H, self.W):copy(values)
   self.indices = positions:view(N, C, self.H, self.W)
   self.output = windows.unbatch(self.output, isBatch)
   self.indices = windows.unbatch(self.indices, isBatch)
   return self.output
end

function SpatialAdaptiveMaxPooling:updateGradInput(input, gradOutput)
   return pooling.maxGradInput(self, input, gradOutput, 2)
end

function SpatialAdaptiveMaxPooling:empty()
   self:clearState()
end

function SpatialAdaptiveMaxPooling:clearState()
   nn.utils.clear(self, 'indices', '_buffer')
   return parent.clearState(self)
end

return SpatialAdaptiveMaxPooling
