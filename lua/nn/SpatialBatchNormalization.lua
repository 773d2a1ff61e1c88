-- nn.SpatialBatchNormalization(nPlane[, eps, momentum, affine]): batch normalisation of each
-- plane of N x C x H x W input, over N, H and W.

require 'nn.BatchNormalization'
local SpatialBatchNormalization, _ = torch.class('nn.SpatialBatchNormalization', 'nn.BatchNormalization')

SpatialBatchNormalization._version = 2
SpatialBatchNormalization.nDim = 4

return SpatialBatchNormalization
