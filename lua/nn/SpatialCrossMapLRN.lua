-- nn.SpatialCrossMapLRN(size[, alpha, beta, k]): local response normalisation across planes
-- (Krizhevsky et al.): for C x H x W images (or a batch), each plane c is divided by
--   scale_c = (k + alpha / size * sum of x_j^2 over the `size` planes j around c)^beta
-- (planes c - floor((size-1)/2) .. c + floor(size/2), those outside left out). alpha defaults
-- to 1e-4, beta to 0.75, k to 1. `scale` keeps the sums' k + alpha/size * ... term.

local windows = require 'nn.engine.windows'

local SpatialCrossMapLRN, parent = torch.class('nn.SpatialCrossMapLRN', 'nn.Module')

function SpatialCrossMapLRN:__init(size, alpha, beta, k)
   parent.__init(self)
   self.size = size
   self.alpha = alpha or 0.0001
   self.beta = beta or 0.75
   self.k = k or 1
end

-- The sums of t (N x C x H x W) over windows of `size` planes, window c spanning planes
-- c - before .. c + after: N x C x H x W.
local function planeWindows(t, before, after)
   local N, C, H, W = t:size(1), t:size(2), t:size(3), t:size(4)
   local padded = t.new(N, C + before + after, H, W):zero()
   padded:narrow(2, before + 1, C):copy(t)
   -- unfold gives N x C x H x W x size; summing the last dimension closes each window.
   return padded:unfold(2, before + after + 1, 1):sum(5):view(N, C, H, W)
end

local function batched(input)
   if input:dim() ~= 3 and input:dim() ~= 4 then
      error('nn.SpatialCrossMapLRN: input must be 3D (C x H x W) or 4D (N x C x H x W)', 3)
   end
   return windows.batch(input, 2, 'nn.SpatialCrossMapLRN')
end

function SpatialCrossMapLRN:updateOutput(input)
   local x, isBatch = batched(input)
   local before = math.floor((self.size - 1) / 2)
   local after = self.size - 1 - before
   self.scale = self.scale or x.new()
   self.scale:resizeAs(x):copy(planeWindows(torch.cmul(x, x), before, after)):mul(self.alpha / self.size):add(self.k)
   self.output:resizeAs(x):copy(torch.pow(self.scale, -self.beta)):cmul(x)
   self.output = windows.unbatch(self.output, isBatch)
   self.scale = windows.unbatch(self.scale, isBatch)
   return self.output
end

-- d/dx_j: gradOutput_j scale_j^-beta - 2 alpha beta / size * x_j * sum over the windows c that
-- hold j of gradOutput_c output_c / scale_c (the windows holding j are the reflected ones).
function SpatialCrossMapLRN:updateGradInput(input, gradOutput)
   local x, isBatch = batched(input)
   local batch = function(t) return isBatch and t or nn.utils.addSingletonDimension(t, 1) end
   local g, y, scale = batch(gradOutput), batch(self.output), batch(self.scale)
   local before = math.floor((self.size - 1) / 2)
   local after = self.size - 1 - before
   local ratio = torch.cmul(g, y):cdiv(scale)
   local sums = planeWindows(ratio, after, before)
   self.gradInput:resizeAs(x):copy(torch.pow(scale, -self.beta)):cmul(g)
   self.gradInput:add(-2 * self.alpha * self.beta / self.size, torch.cmul(x, sums))
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function SpatialCrossMapLRN:clearState()
   nn.utils.clear(self, 'scale', 'paddedRatio', 'accumRatio')
   return parent.clearState(self)
end

return SpatialCrossMapLRN
