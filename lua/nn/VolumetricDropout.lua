-- nn.VolumetricDropout(p[, stochasticInference]): nn.SpatialDropout for C x T x H x W volumes
-- (or a batch): whole volumes of a plane are zeroed with probability p in training.

require 'nn.SpatialDropout'
local VolumetricDropout, _ = torch.class('nn.VolumetricDropout', 'nn.SpatialDropout')

VolumetricDropout.planeDims = 3

return VolumetricDropout
