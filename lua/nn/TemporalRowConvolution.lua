-- nn.TemporalRowConvolution(inputFrameSize, kW[, dW, featFirst]): a 1-D convolution of each
-- feature on its own (a row convolution, Wang et al. 2016) over a sequence nInputFrame x
-- inputFrameSize (or a batch of them; inputFrameSize x nInputFrame with featFirst):
--   output[t][i] = bias[i] + sum_{k=1..kW} weight[i][1][k] * input[dW*(t-1)+k][i].
-- The weight is inputFrameSize x 1 x kW; :noBias() drops the bias.

local windows = require 'nn.engine.windows'

local TemporalRowConvolution, parent = torch.class('nn.TemporalRowConvolution', 'nn.Module')

function TemporalRowConvolution:__init(inputFrameSize, kW, dW, featFirst)
   parent.__init(self)
   self.inputFrameSize = inputFrameSize
   self.kW = kW
   self.dW = dW or 1
   self.weight = torch.Tensor(inputFrameSize, 1, kW)
   self.bias = torch.Tensor(inputFrameSize)
   self.gradWeight = torch.Tensor(inputFrameSize, 1, kW)
   self.gradBias = torch.Tensor(inputFrameSize)
   self.featFirst = featFirst and true or false
   self:reset()
end

function TemporalRowConvolution:noBias()
   self.bias = nil
   self.gradBias = nil
   return self
end

function TemporalRowConvolution:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.inputFrameSize)
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
end

-- The input as N x F x T (features first), whether it was a batch, and the geometry over T.
local function setup(self, input)
   local d = input:dim()
   if d ~= 2 and d ~= 3 then
      error('nn.TemporalRowConvolution: input must be 2D (one sequence) or 3D (a batch of sequences)', 3)
   end
   local x = d == 2 and nn.utils.addSingletonDimension(input, 1) or input
   if not self.featFirst then x = x:transpose(2, 3) end
   if x:size(2) ~= self.inputFrameSize then
      error(string.format('nn.TemporalRowConvolution: input frames have %d features, expected %d', x:size(2),
         self.inputFrameSize), 3)
   end
   if x:size(3) < self.kW then
      error(string.format('nn.TemporalRowConvolution: input sequence of %d frames is shorter than the kernel (%d)',
         x:size(3), self.kW), 3)
   end
   local g = windows.geometry({ x:size(3) }, { self.kW }, { self.dW }, { 0 })
   self.finput = self.finput or x.new()
   self.fgradInput = self.fgradInput or x.new()
   return x, d == 3, g
end

-- A result computed as N x F x T' back in the input's layout.
local function back(self, t, isBatch)
   if not self.featFirst then t = t:transpose(2, 3) end
   if not isBatch then t = t:select(1, 1) end
   return t
end

-- The weights as 1 x F x kW x 1, to broadcast over the columns (N x F x kW x O).
local function taps(self)
   return self.weight:view(1, self.inputFrameSize, self.kW, 1)
end

function TemporalRowConvolution:updateOutput(input)
   local x, isBatch, g = setup(self, input)
   local N, F = x:size(1), x:size(2)
   local cols = windows.unfold(self.finput, x, g, self.fgradInput):view(N, F, g.K, g.O)
   local out = torch.cmul(cols, taps(self):expandAs(cols)):sum(3):view(N, F, g.O)
   if self.bias then out:add(self.bias:view(1, F, 1):expandAs(out)) end
   local y = back(self, out, isBatch)
   self.output:resize(y:size()):copy(y)
   return self.output
end

function TemporalRowConvolution:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, g = setup(self, input)
   local N, F = x:size(1), x:size(2)
   local go = gradOutput
   if not isBatch then go = nn.utils.addSingletonDimension(go, 1) end
   if not self.featFirst then go = go:transpose(2, 3) end
   local w = taps(self)
   local gcols = go:contiguous():view(N, F, 1, g.O):expand(N, F, g.K, g.O):clone()
   gcols:cmul(w:expandAs(gcols))
   local gx = x.new(N, F, x:size(3)):zero()
   windows.fold(gx, gcols:view(N * F, g.K, g.O), g, self.fgradInput)
   local y = back(self, gx, isBatch)
   self.gradInput:resize(y:size()):copy(y)
   return self.gradInput
end

function TemporalRowConvolution:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local x, isBatch, g = setup(self, input)
   local N, F = x:size(1), x:size(2)
   local go = gradOutput
   if not isBatch then go = nn.utils.addSingletonDimension(go, 1) end
   if not self.featFirst then go = go:transpose(2, 3) end
   go = go:contiguous():view(N, F, 1, g.O)
   local cols = windows.unfold(self.finput, x, g, self.fgradInput):view(N, F, g.K, g.O)
   local gw = torch.cmul(cols, go:expandAs(cols)):sum(4):sum(1):view(F, 1, g.K)
   self.gradWeight:add(scale, gw)
   if self.bias then
      self.gradBias:add(scale, go:sum(4):sum(1):view(F))
   end
end

function TemporalRowConvolution:type(type, tensorCache)
   if self.finput then self.finput:set() end
   if self.fgradInput then self.fgradInput:set() end
   return parent.type(self, type, tensorCache)
end

function TemporalRowConvolution:__tostring__()
   local s = string.format('%s(%d, %d', torch.type(self), self.inputFrameSize, self.kW)
   if self.dW ~= 1 then s = s .. string.format(', %d', self.dW) end
   if self.bias then return s .. ')' end
   return s .. ') without bias'
end

function TemporalRowConvolution:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
   return parent.clearState(self)
end

return TemporalRowConvolution
