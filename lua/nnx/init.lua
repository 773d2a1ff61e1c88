-- The `nnx` package: Clement Farabet's extensions to nn (extra modules, criteria and data
-- helpers). Scripts of the Torch era load it by habit, often using nothing of it (the
-- Torch-parallel-nccl-MPS seed is one). Here it is nn itself, loaded, so that `require 'nnx'`
-- succeeds and `nnx` names the same table of modules. Of nnx's own modules, those written in Lua
-- here are loaded (nn.SpatialReSampling, which dpnn's SpatialUniformCrop uses).

require 'nn'
require 'nnx.SpatialReSampling'
local nnx = rawget(_G, 'nnx')
if type(nnx) ~= 'table' then
   nnx = setmetatable({}, { __index = nn })
   rawset(_G, 'nnx', nnx)
end
return nnx
