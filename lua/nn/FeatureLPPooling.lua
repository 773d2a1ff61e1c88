-- nn.FeatureLPPooling(width, stride, power[, batch_mode]): the p-norm (sum of x^p)^(1/p), p =
-- power, of windows of `width` consecutive features moved by `stride`, along the feature
-- dimension: the first of F [x d1 [x d2]] inputs, the second with batch_mode (B x F ...). The
-- feature dimension becomes (F - width) / stride + 1; the others are kept.

local windows = require 'nn.engine.windows'
local pooling = require 'nn.engine.pooling'

local FeatureLPPooling, parent = torch.class('nn.FeatureLPPooling', 'nn.Module')

function FeatureLPPooling:__init(width, stride, power, batch_mode)
   parent.__init(self)
   if width < 2 or width > 16 then error('nn.FeatureLPPooling: width must be within 2 to 16') end
   if stride < 1 or stride > 4 then error('nn.FeatureLPPooling: stride must be within 1 to 4') end
   self.width = width
   self.stride = stride
   self.power = power
   self.batch_mode = batch_mode
end

-- The input as B x F x R (R the product of the trailing sizes), and the output's sizes.
local function setup(self, input)
   local first = self.batch_mode and 2 or 1
   local d = input:dim()
   if d < first or d > first + 2 then
      error(string.format('nn.FeatureLPPooling: input must have %d to %d dimensions%s', first, first + 2,
         self.batch_mode and ' (batch mode)' or ''), 3)
   end
   local F = input:size(first)
   if F < self.width then
      error(string.format('nn.FeatureLPPooling: %d features are fewer than the width (%d)', F, self.width), 3)
   end
   local B = self.batch_mode and input:size(1) or 1
   local R = input:nElement() / (B * F)
   local g = windows.geometry({ F }, { self.width }, { self.stride }, { 0 })
   local outSize = input:size()
   outSize[first] = g.out[1]
   self._buffer = self._buffer or input.new()
   local x = input:contiguous():view(B, F, R)
   return x:transpose(2, 3):contiguous():view(B * R, F), g, outSize, B, R
end

function FeatureLPPooling:updateOutput(input)
   local planes, g, outSize, B, R = setup(self, input)
   local out = pooling.regularLp(planes, g, self.power, self._buffer)
   self.output:resize(outSize)
   self.output:view(B, g.O, R):copy(out:view(B, R, g.O):transpose(2, 3))
   return self.output
end

function FeatureLPPooling:updateGradInput(input, gradOutput)
   local planes, g, _, B, R = setup(self, input)
   local F = planes:size(2)
   local go = gradOutput:contiguous():view(B, g.O, R):transpose(2, 3):contiguous():view(B * R, g.O)
   local out = self.output:contiguous():view(B, g.O, R):transpose(2, 3):contiguous():view(B * R, g.O)
   local gradPlanes = planes.new(B * R, F)
   pooling.regularLpBackward(gradPlanes, go, planes, out, g, self.power, self._buffer)
   self.gradInput:resizeAs(input)
   self.gradInput:view(B, F, R):copy(gradPlanes:view(B, R, F):transpose(2, 3))
   return self.gradInput
end

function FeatureLPPooling:clearState()
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

function FeatureLPPooling:__tostring__()
   return string.format('%s(w%d s%d power %d batch %d)', torch.type(self), self.width, self.stride, self.power,
      self.batch_mode and 1 or 0)
end

return FeatureLPPooling
