-- nn.PixelShuffle(upscaleFactor): rearranges N x C*r^2 x H x W (or C*r^2 x H x W) into
-- N x C x H*r x W*r, r = upscaleFactor (Shi et al., "Real-Time Single Image and Video
-- Super-Resolution Using an Efficient Sub-Pixel Convolutional Neural Network"):
--   output[c][h][w] = input[(c-1)*r^2 + ((h-1) % r)*r + ((w-1) % r) + 1][ceil(h/r)][ceil(w/r)].
-- A pure permutation of the elements: its backward pass is the inverse permutation.

local windows = require 'nn.engine.windows'

local PixelShuffle, parent = torch.class('nn.PixelShuffle', 'nn.Module')

function PixelShuffle:__init(upscaleFactor)
   parent.__init(self)
   self.upscaleFactor = upscaleFactor
   self.upscaleFactorSquared = upscaleFactor * upscaleFactor
end

-- The input as N x C x r x r x H x W.
local function split(self, input)
   local x = windows.batch(input, 2, 'nn.PixelShuffle')
   local r = self.upscaleFactor
   local N, Cr2, H, W = x:size(1), x:size(2), x:size(3), x:size(4)
   if Cr2 % self.upscaleFactorSquared ~= 0 then
      error(string.format('nn.PixelShuffle: %d input planes are not a multiple of %d', Cr2, self.upscaleFactorSquared),
         3)
   end
   return x:contiguous():view(N, Cr2 / self.upscaleFactorSquared, r, r, H, W), input:dim() == 4
end

function PixelShuffle:updateOutput(input)
   local x, isBatch = split(self, input)
   local N, C, r, H, W = x:size(1), x:size(2), self.upscaleFactor, x:size(5), x:size(6)
   -- N x C x H x r x W x r, then rows and columns merged.
   self.output:resize(N, C, H, r, W, r):copy(x:permute(1, 2, 5, 3, 6, 4))
   self.output = self.output:view(N, C, H * r, W * r)
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function PixelShuffle:updateGradInput(input, gradOutput)
   local x, isBatch = split(self, input)
   local N, C, r, H, W = x:size(1), x:size(2), self.upscaleFactor, x:size(5), x:size(6)
   local g = gradOutput:contiguous():view(N, C, H, r, W, r)
   self.gradInput:resize(N, C, r, r, H, W):copy(g:permute(1, 2, 4, 6, 3, 5))
   self.gradInput = self.gradInput:view(input:size())
   return self.gradInput
end

function PixelShuffle:clearState()
   nn.utils.clear(self, { '_intermediateShape', '_outShape', '_shuffleIn', '_shuffleOut' })
   return parent.clearState(self)
end

return PixelShuffle
