-- nn.VolumetricBatchNormalization(nPlane[, eps, momentum, affine]): batch normalisation of each
-- plane of N x C x T x H x W input, over N, T, H and W.

require 'nn.BatchNormalization'
local VolumetricBatchNormalization, _ = torch.class('nn.VolumetricBatchNormalization', 'nn.BatchNormalization')

VolumetricBatchNormalization.nDim = 5

return VolumetricBatchNormalization
