-- nn.SpatialContrastiveNormalization(nInputPlane[, kernel, threshold, thresval]): local
-- subtractive then divisive normalisation (nn.SpatialSubtractiveNormalization followed by
-- nn.SpatialDivisiveNormalization with the same kernel), kept in `normalizer`.

require 'nn.SpatialDivisiveNormalization'
local SpatialContrastiveNormalization, parent =
   torch.class('nn.SpatialContrastiveNormalization', 'nn.Module')

function SpatialContrastiveNormalization:__init(nInputPlane, kernel, threshold, thresval)
   parent.__init(self)
   self.nInputPlane = nInputPlane or 1
   self.kernel = kernel or torch.Tensor(9, 9):fill(1)
   self.threshold = threshold or 1e-4
   self.thresval = thresval or threshold or 1e-4
   nn.SpatialSubtractiveNormalization.checkKernel(self.kernel, 'nn.SpatialContrastiveNormalization')
   self.normalizer = nn.Sequential()
   self.normalizer:add(nn.SpatialSubtractiveNormalization(self.nInputPlane, self.kernel))
   self.normalizer:add(nn.SpatialDivisiveNormalization(self.nInputPlane, self.kernel, self.threshold, self.thresval))
end

function SpatialContrastiveNormalization:updateOutput(input)
   self.output = self.normalizer:forward(input)
   return self.output
end

function SpatialContrastiveNormalization:updateGradInput(input, gradOutput)
   self.gradInput = self.normalizer:backward(input, gradOutput)
   return self.gradInput
end

return SpatialContrastiveNormalization
