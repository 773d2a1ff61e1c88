-- nn.SpatialSubSampling(nInputPlane, kW, kH[, dW, dH]): each plane's kW x kH window sums moved by
-- dW, dH (default 1), times that plane's weight plus its bias:
--   output[c][i][j] = bias[c] + weight[c] * sum of input[c] over window (i, j).

local windows = require 'nn.engine.windows'
local pooling = require 'nn.engine.pooling'

local SpatialSubSampling, parent = torch.class('nn.SpatialSubSampling', 'nn.Module')

function SpatialSubSampling:__init(nInputPlane, kW, kH, dW, dH)
   parent.__init(self)
   self.nInputPlane = nInputPlane
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or 1, dH or 1
   self.weight = torch.Tensor(nInputPlane)
   self.bias = torch.Tensor(nInputPlane)
   self.gradWeight = torch.Tensor(nInputPlane)
   self.gradBias = torch.Tensor(nInputPlane)
   self:reset()
end

function SpatialSubSampling:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.kH)
   end
   self.weight:uniform(-stdv, stdv)
   self.bias:uniform(-stdv, stdv)
end

-- The input as a batch and the windows' geometry.
local function setup(self, input)
   local x, isBatch = windows.batch(input, 2, 'nn.SpatialSubSampling')
   if x:size(2) ~= self.nInputPlane then
      error(string.format('nn.SpatialSubSampling: input has %d planes, expected %d', x:size(2), self.nInputPlane), 3)
   end
   local g = pooling.geometry(self, x, { n = 2, k = { self.kH, self.kW }, d = { self.dH, self.dW }, pad = { 0, 0 } })
   self._buffer = self._buffer or x.new()
   return x, isBatch, g
end

function SpatialSubSampling:updateOutput(input)
   local x, isBatch, g = setup(self, input)
   local N, C = x:size(1), x:size(2)
   local sums = pooling.regularSum(x, g, self._buffer):view(N, C, g.O)
   sums:cmul(self.weight:view(1, C, 1):expandAs(sums)):add(self.bias:view(1, C, 1):expandAs(sums))
   self.output:resize(N, C, g.out[1], g.out[2]):copy(sums)
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function SpatialSubSampling:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, g = setup(self, input)
   local N, C = x:size(1), x:size(2)
   local go = gradOutput:contiguous():view(N, C, g.O)
   go = torch.cmul(go, self.weight:view(1, C, 1):expandAs(go))
   self.gradInput:resize(x:size())
   pooling.regularSumBackward(self.gradInput, go:view(N * C, g.O), g, self._buffer)
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function SpatialSubSampling:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local x, _, g = setup(self, input)
   local N, C = x:size(1), x:size(2)
   local go = gradOutput:contiguous():view(N, C, g.O)
   local sums = pooling.regularSum(x, g, self._buffer):view(N, C, g.O)
   self.gradWeight:add(scale, sums:cmul(go):sum(3):sum(1):view(C))
   self.gradBias:add(scale, go:sum(3):sum(1):view(C))
end

function SpatialSubSampling:clearState()
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

return SpatialSubSampling
