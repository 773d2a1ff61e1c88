-- nn.TemporalSubSampling(inputFrameSize, kW[, dW]): over a sequence nInputFrame x
-- inputFrameSize (or a batch of them), the sums of windows of kW frames moved by dW (default 1),
-- per feature, times that feature's weight plus its bias:
--   output[t][i] = bias[i] + weight[i] * sum_{k=1..kW} input[dW*(t-1)+k][i].

local windows = require 'nn.engine.windows'
local pooling = require 'nn.engine.pooling'

local TemporalSubSampling, parent = torch.class('nn.TemporalSubSampling', 'nn.Module')

function TemporalSubSampling:__init(inputFrameSize, kW, dW)
   parent.__init(self)
   self.inputFrameSize = inputFrameSize
   self.kW = kW
   self.dW = dW or 1
   self.weight = torch.Tensor(inputFrameSize)
   self.bias = torch.Tensor(inputFrameSize)
   self.gradWeight = torch.Tensor(inputFrameSize)
   self.gradBias = torch.Tensor(inputFrameSize)
   self:reset()
end

function TemporalSubSampling:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW)
   end
   self.weight:uniform(-stdv, stdv)
   self.bias:uniform(-stdv, stdv)
end

-- The input as a batch N x T x F, its planes (N*F x T), the windows' geometry and their number.
local function setup(self, input)
   local d = input:dim()
   if d ~= 2 and d ~= 3 then
      error('nn.TemporalSubSampling: input must be 2D (frames x features) or 3D (batch x frames x features)', 3)
   end
   local x = d == 2 and nn.utils.addSingletonDimension(input, 1) or input
   local N, T, F = x:size(1), x:size(2), x:size(3)
   if F ~= self.inputFrameSize then
      error(string.format('nn.TemporalSubSampling: input frames have %d features, expected %d', F,
         self.inputFrameSize), 3)
   end
   if T < self.kW then
      error(string.format('nn.TemporalSubSampling: input sequence of %d frames is shorter than the kernel (%d)', T,
         self.kW), 3)
   end
   local g = windows.geometry({ T }, { self.kW }, { self.dW }, { 0 })
   self._buffer = self._buffer or x.new()
   return x, d == 3, x:transpose(2, 3):contiguous():view(N * F, T), g, g.out[1]
end

function TemporalSubSampling:updateOutput(input)
   local x, isBatch, planes, g, oT = setup(self, input)
   local N, F = x:size(1), x:size(3)
   local sums = pooling.regularSum(planes, g, self._buffer):view(N, F, oT)
   sums:cmul(self.weight:view(1, F, 1):expandAs(sums)):add(self.bias:view(1, F, 1):expandAs(sums))
   self.output:resize(N, oT, F):copy(sums:transpose(2, 3))
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function TemporalSubSampling:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, _, g, oT = setup(self, input)
   local N, T, F = x:size(1), x:size(2), x:size(3)
   local go = gradOutput:contiguous():view(N, oT, F):transpose(2, 3)
   go = torch.cmul(go, self.weight:view(1, F, 1):expandAs(go))
   local planes = x.new(N * F, T)
   pooling.regularSumBackward(planes, go:contiguous():view(N * F, oT), g, self._buffer)
   self.gradInput:resize(N, T, F):copy(planes:view(N, F, T):transpose(2, 3))
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function TemporalSubSampling:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local x, _, planes, g, oT = setup(self, input)
   local N, F = x:size(1), x:size(3)
   local go = gradOutput:contiguous():view(N, oT, F):transpose(2, 3)
   local sums = pooling.regularSum(planes, g, self._buffer):view(N, F, oT)
   self.gradWeight:add(scale, sums:cmul(go):sum(3):sum(1):view(F))
   self.gradBias:add(scale, go:sum(3):sum(1):view(F))
end

function TemporalSubSampling:clearState()
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

return TemporalSubSampling
