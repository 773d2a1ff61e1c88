-- The `cunn` package: nn on CUDA tensors. As in Torch, loading it is mostly for its side effects:
-- it loads cutorch (failing as cutorch does, saying why, where there is no usable GPU) and nn,
-- after which every nn module and criterion runs on torch.CudaTensor once converted with
-- :cuda(). There are no separate CUDA classes: the nn modules are written against the tensor
-- API, which dispatches to the device kernels (src/cuda), and nn's window passes (im2col,
-- col2im, max pooling) have device kernels under the host kernels' names (cutorch._C._nn, see
-- nn.engine.kernels); the other host kernels (threshold, direct convolutions) fall back to the
-- tensor API on the device.
--
-- What is not here: nn.DataParallelTable (one process driving several GPUs); run one process
-- per GPU (parallel, NCCL) instead.

local ok, why = pcall(require, 'cutorch')
if not ok then
   -- Lua 5.1's require would otherwise answer a second attempt with "loop or previous error".
   package.loaded.cunn = nil
   error(why, 0)
end
require 'nn'

local cunn = rawget(_G, 'cunn')
if type(cunn) ~= 'table' then cunn = {} end
rawset(_G, 'cunn', cunn)
package.loaded.cunn = cunn

-- nn.Module:getParameters flattens on the device into a device storage: nothing to add. Module
-- :cuda() and Criterion:cuda() are nn's own (they convert to torch.CudaTensor).

return cunn
