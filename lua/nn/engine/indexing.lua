-- Index tensors for host and device data. Host tensors index with torch.LongTensor; device
-- tensors (cutorch's) with torch.CudaLongTensor, which stays on the device. Scripts convert their
-- index tensors with :cuda(), which gives torch.CudaTensor, so modules take those too.

local indexing = {}

-- The index tensor type that goes with tensors like `t`.
function indexing.typeFor(t)
   return torch.type(t):find('^torch%.Cuda') and 'torch.CudaLongTensor' or 'torch.LongTensor'
end

-- `buffer` when it is an index tensor of the type that goes with `t`, else a new empty one (a
-- module's buffer is converted with the module by :type(), to the module's value type).
function indexing.buffer(buffer, t)
   local ty = indexing.typeFor(t)
   if torch.type(buffer) == ty then return buffer end
   return torch.getmetatable(ty).new()
end

-- `idx` as an index tensor: LongTensor and CudaLongTensor as they are, other device tensors
-- converted on the device to CudaLongTensor, other host tensors to LongTensor.
function indexing.tensor(idx)
   local ty = torch.type(idx)
   if ty == 'torch.LongTensor' or ty == 'torch.CudaLongTensor' then return idx end
   return idx:type(indexing.typeFor(idx))
end

return indexing
