-- nn.SpatialSoftMax: the softmax across the planes at every pixel of C x H x W maps (or a batch
-- N x C x H x W): nn.SoftMax's rule, which already runs along the planes for such inputs.

require 'nn.SoftMax'
local SpatialSoftMax, _ = torch.class('nn.SpatialSoftMax', 'nn.SoftMax')

return SpatialSoftMax
