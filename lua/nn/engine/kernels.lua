-- Which kernel runs a pass. The Rust kernels (torch._nn) take contiguous float and double
-- tensors; device tensors (torch.CudaTensor, torch.CudaDoubleTensor) have kernels of the same
-- name and arguments for some of the passes (cutorch's _nn: unfold, fold, maxPool,
-- maxPoolBackward); other types, and passes without a device kernel, take the modules'
-- tensor-method paths.

local kernels = {}

-- The host kernel table, for the passes that only run on the host (the direct convolutions).
kernels.host = torch._nn

-- The kernel table for tensors like t, or nil.
function kernels.of(t)
   local ty = torch.type(t)
   if ty == 'torch.FloatTensor' or ty == 'torch.DoubleTensor' then return kernels.host end
   if ty == 'torch.CudaTensor' or ty == 'torch.CudaDoubleTensor' then
      local cutorch = rawget(_G, 'cutorch')
      return cutorch and cutorch._C and cutorch._C._nn
   end
end

-- The fused kernel `name` (softMax, batchNorm, pointwiseLoss, classNLL, ...) for t, when t and
-- every other tensor given (nil ones skipped) are of t's type; else nil, and the caller takes its
-- tensor-method path (device tensors have none of these kernels: cunn relies on that path).
function kernels.fused(name, t, ...)
   local k = kernels.of(t)
   k = k and k[name]
   if not k then return nil end
   local ty = torch.type(t)
   for i = 1, select('#', ...) do
      local o = select(i, ...)
      if o ~= nil and torch.type(o) ~= ty then return nil end
   end
   return k
end

-- Whether tensors like t have the kernel `name` (default unfold, which every table has).
function kernels.has(t, name)
   local k = kernels.of(t)
   return k ~= nil and k[name or 'unfold'] ~= nil
end

return kernels
