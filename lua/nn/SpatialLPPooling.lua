-- nn.SpatialLPPooling(nInputPlane, pnorm, kW, kH[, dW, dH]): the p-norm of each kW x kH window
-- moved by dW, dH (default: the window size) over each plane: (sum of x^p)^(1/p), p = pnorm.
-- It has no parameters.
--
-- The original built this as a Sequential (power, average pooling, scaling, root); a model it
-- saved is read here with pnorm taken from its first module.

local windows = require 'nn.engine.windows'
local pooling = require 'nn.engine.pooling'

local SpatialLPPooling, parent = torch.class('nn.SpatialLPPooling', 'nn.Module')

function SpatialLPPooling:__init(nInputPlane, pnorm, kW, kH, dW, dH)
   parent.__init(self)
   self.nInputPlane = nInputPlane
   self.pnorm = pnorm
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or kW, dH or kH
end

local function norm(self)
   if not self.pnorm and self.modules and self.modules[1] then
      local first = self.modules[1]
      self.pnorm = torch.type(first) == 'nn.Square' and 2 or first.pow
   end
   return self.pnorm
end

local function setup(self, input)
   local x, isBatch = windows.batch(input, 2, 'nn.SpatialLPPooling')
   local g = pooling.geometry(self, x, { n = 2, k = { self.kH, self.kW }, d = { self.dH, self.dW }, pad = { 0, 0 } })
   self._buffer = self._buffer or x.new()
   return x, isBatch, g
end

function SpatialLPPooling:updateOutput(input)
   local x, isBatch, g = setup(self, input)
   local out = pooling.regularLp(x, g, norm(self), self._buffer)
   self.output:resize(x:size(1), x:size(2), g.out[1], g.out[2]):copy(out)
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function SpatialLPPooling:updateGradInput(input, gradOutput)
   local x, isBatch, g = setup(self, input)
   local L = x:size(1) * x:size(2)
   self.gradInput:resize(x:size())
   pooling.regularLpBackward(self.gradInput, gradOutput:contiguous():view(L, g.O), x,
      self.output:contiguous():view(L, g.O), g, norm(self), self._buffer)
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

-- No parameters.
function SpatialLPPooling:reset() end
function SpatialLPPooling:accGradParameters() end
function SpatialLPPooling:accUpdateGradParameters() end
function SpatialLPPooling:zeroGradParameters() end
function SpatialLPPooling:updateParameters() end

function SpatialLPPooling:clearState()
   nn.utils.clear(self, '_buffer')
   return parent.clearState(self)
end

function SpatialLPPooling:__tostring__()
   return string.format('%s(%s, %dx%d, %d,%d)', torch.type(self), tostring(norm(self)), self.kW, self.kH, self.dW,
      self.dH)
end

return SpatialLPPooling
