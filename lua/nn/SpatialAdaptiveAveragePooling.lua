-- nn.SpatialAdaptiveAveragePooling(W, H): average pooling whose windows adapt to the input so
-- that the output is always H x W (the windows of nn.SpatialAdaptiveMaxPooling).

local windows = require 'nn.engine.windows'
local pooling = require 'nn.engine.pooling'

local SpatialAdaptiveAveragePooling, parent = torch.class('nn.SpatialAdaptiveAveragePooling', 'nn.Module')

function SpatialAdaptiveAveragePooling:__init(W, H)
   parent.__init(self)
   self.W = W
   self.H = H
end

-- The batch, whether the input was one, the index map and each window's element count.
local function setup(self, input)
   local x, isBatch = windows.batch(input, 2, torch.type(self))
   local idx, count = pooling.adaptiveIndex({ x:size(3), x:size(4) }, { self.H, self.W })
   self._buffer = self._buffer or x.new()
   return x, isBatch, idx, count:typeAs(x):view(1, -1)
end

function SpatialAdaptiveAveragePooling:updateOutput(input)
   local x, isBatch, idx, count = setup(self, input)
   local N, C = x:size(1), x:size(2)
   local sums = pooling.sum(pooling.planes(x, 2), idx, self._buffer)
   self.output:resize(N, C, self.H, self.W):copy(sums:cdiv(count:expandAs(sums)))
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function SpatialAdaptiveAveragePooling:updateGradInput(input, gradOutput)
   local x, isBatch, idx, count = setup(self, input)
   local N, C = x:size(1), x:size(2)
   local g = gradOutput:contiguous():view(N * C, -1)
   g = torch.cdiv(g, count:expandAs(g))
   self.gradInput:resize(x:size())
   pooling.sumBackward(self.gradInput:view(N * C, -1), g, idx, self._buffer)
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function SpatialAdaptiveAveragePooling:empty()
   self:clearState()
end

function SpatialAdaptiveAveragePooling:clearState()
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

return SpatialAdaptiveAveragePooling
