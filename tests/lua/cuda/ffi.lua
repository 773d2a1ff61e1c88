-- t:data() through LuaJIT's FFI, and THCState_getCurrentStream as FFI code written against
-- cutorch calls it (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local ffi = require 'ffi'
local cases = {}

pcall(ffi.cdef, [[
   void *THCState_getCurrentStream(void *state);
   void *THCState_getCurrentStreamOnDevice(void *state, int device);
   int THCState_getNumDevices(void *state);
   int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes);
   int cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t bytes);
   int cuStreamSynchronize(void *stream);
]])

local cuda = ffi.load('libcuda.so.1')

function cases.dataIsADevicePointer()
   local x = torch.FloatTensor({ 1, 2, 3, 4, 5, 6 })
   local c = x:cuda()
   local p = c:data()
   H.eq(tostring(ffi.typeof(p)), 'ctype<float *>', 'pointer type')
   H.check(p ~= nil, 'a tensor with elements has an address')
   -- Views point at their first element.
   local v = c:narrow(1, 3, 2)
   H.eq(tonumber(ffi.cast('intptr_t', v:data()) - ffi.cast('intptr_t', p)), 8, 'offset of a view')
   H.check(c:storage():data() == p, 'storage data')
   -- Read and write the device memory through the driver, called through FFI as cutorch code did.
   cutorch.synchronize()
   local host = ffi.new('float[2]')
   H.eq(cuda.cuMemcpyDtoH_v2(host, ffi.cast('uint64_t', v:data()), 8), 0, 'cuMemcpyDtoH')
   H.eq(host[0], 3, 'first element read through FFI')
   H.eq(host[1], 4, 'second element')
   host[0] = 42
   H.eq(cuda.cuMemcpyHtoD_v2(ffi.cast('uint64_t', p), host, 4), 0, 'cuMemcpyHtoD')
   H.eq(c[1], 42, 'a write through FFI shows in the tensor')
   H.eq(tostring(ffi.typeof(torch.CudaDoubleTensor(1):data())), 'ctype<double *>', 'double pointer type')
   H.eq(tostring(ffi.typeof(torch.CudaLongTensor(1):data())), 'ctype<int64_t *>', 'long pointer type')
   H.check(torch.CudaTensor():data() == nil, 'an empty tensor has no address')
end

function cases.currentStreamThroughFfi()
   local state = cutorch.getState()
   H.eq(ffi.C.THCState_getNumDevices(state), cutorch.getDeviceCount(), 'THCState_getNumDevices')
   cutorch.setStream(0)
   H.check(ffi.C.THCState_getCurrentStream(state) == nil, 'the default stream is NULL')
   cutorch.reserveStreams(2)
   cutorch.setStream(2)
   local s = ffi.C.THCState_getCurrentStream(state)
   H.check(s ~= nil, 'a reserved stream is not NULL')
   H.eq(tonumber(ffi.cast('intptr_t', s)), cutorch._currentStreamAddress(), 'the stream cutorch uses')
   H.check(ffi.C.THCState_getCurrentStreamOnDevice(state, 0) == s, 'on device 0')
   -- The stream works with the driver through FFI.
   local c = torch.CudaTensor(1000):fill(3)
   H.eq(cuda.cuStreamSynchronize(s), 0, 'cuStreamSynchronize')
   H.eq(c:sum(), 3000, 'work on that stream')
   cutorch.setStream(0)
end

return cases
