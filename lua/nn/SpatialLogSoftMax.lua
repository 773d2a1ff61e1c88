-- nn.SpatialLogSoftMax: the log-softmax across the planes at every pixel of C x H x W maps (or
-- a batch N x C x H x W): nn.LogSoftMax's rule, which already runs along the planes for such
-- inputs.

require 'nn.LogSoftMax'
local SpatialLogSoftMax, _ = torch.class('nn.SpatialLogSoftMax', 'nn.LogSoftMax')

return SpatialLogSoftMax
