-- nn.TemporalMaxPooling(kW[, dW]): the largest value of each window of kW frames moved by dW
-- (default kW), per feature, over a sequence nInputFrame x frameSize (or a batch N x
-- nInputFrame x frameSize). `indices` keeps, in the output's shape, each maximum's frame.

local indexing = require 'nn.engine.indexing'
local windows = require 'nn.engine.windows'
local pooling = require 'nn.engine.pooling'

local TemporalMaxPooling, parent = torch.class('nn.TemporalMaxPooling', 'nn.Module')

function TemporalMaxPooling:__init(kW, dW)
   parent.__init(self)
   self.kW = kW
   self.dW = dW or kW
end

-- The input as a batch N x T x F, whether it was one, and the geometry over T.
local function setup(self, input)
   local d = input:dim()
   if d ~= 2 and d ~= 3 then
      error('nn.TemporalMaxPooling: input must be 2D (frames x features) or 3D (batch x frames x features)', 3)
   end
   local x = d == 2 and nn.utils.addSingletonDimension(input, 1) or input
   local T = x:size(2)
   if T < self.kW then
      error(string.format('nn.TemporalMaxPooling: input sequence of %d frames is shorter than the kernel (%d)', T,
         self.kW), 3)
   end
   local g = windows.geometry({ T }, { self.kW }, { self.dW }, { 0 })
   return x, d == 3, g
end

function TemporalMaxPooling:updateOutput(input)
   local x, isBatch, g = setup(self, input)
   local N, T, F = x:size(1), x:size(2), x:size(3)
   local planes = x:transpose(2, 3):contiguous():view(N * F, T)
   self._buffer = self._buffer or x.new()
   local values, positions = pooling.regularMax(planes, g, self._buffer)
   local oT = g.out[1]
   self.output:resize(N, oT, F):copy(values:view(N, F, oT):transpose(2, 3))
   self.indices = positions:view(N, F, oT):transpose(2, 3):contiguous()
   self.output = windows.unbatch(self.output, isBatch)
   self.indices = windows.unbatch(self.indices, isBatch)
   return self.output
end

function TemporalMaxPooling:updateGradInput(input, gradOutput)
   local x, isBatch, g = setup(self, input)
   local N, T, F = x:size(1), x:size(2), x:size(3)
   local oT = g.out[1]
   local go = gradOutput:contiguous():view(N, oT, F):transpose(2, 3):contiguous():view(N * F, oT)
   local positions = indexing.tensor(self.indices):contiguous():view(N, oT, F):transpose(2, 3):contiguous():view(N * F, oT)
   local planes = x.new(N * F, T)
   pooling.maxBackward(planes, go, positions)
   self.gradInput:resize(N, T, F):copy(planes:view(N, F, T):transpose(2, 3))
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function TemporalMaxPooling:empty()
   self:clearState()
end

function TemporalMaxPooling:clearState()
   nn.utils.clear(self, 'indices', '_buffer')
   return parent.clearState(self)
end

return TemporalMaxPooling
