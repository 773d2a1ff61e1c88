-- cutorch on a machine with no usable GPU (tests/cutorch.rs runs it with CUDA_VISIBLE_DEVICES set
-- to nothing, so it holds on GPU machines too): require works, there is no device, and every call
-- that needs one raises an error naming the call and saying why.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local cases = {}

function cases.requireWorks()
   H.eq(type(cutorch), 'table', 'cutorch global')
   H.eq(require('cutorch'), cutorch, 'require returns the package')
   H.eq(cutorch.getDeviceCount(), 0, 'device count')
   -- The classes exist (as in cutorch) even though no instance can be made.
   for _, name in ipairs { 'CudaTensor', 'CudaDoubleTensor', 'CudaLongTensor', 'CudaStorage', 'CudaDoubleStorage',
      'CudaLongStorage' } do
      H.check(torch[name] ~= nil, 'torch.%s is missing', name)
      H.check(torch.getmetatable('torch.' .. name) ~= nil, 'class torch.%s is not registered', name)
   end
   H.eq(type(torch.FloatTensor(2).cuda), 'function', ':cuda() on host tensors')
   H.eq(type(cutorch.getState()), 'userdata', 'getState')
end

function cases.deviceCallsRaise()
   local calls = {
      ['cutorch.setDevice'] = function() cutorch.setDevice(1) end,
      ['cutorch.getDevice'] = function() cutorch.getDevice() end,
      ['cutorch.getDeviceProperties'] = function() cutorch.getDeviceProperties(1) end,
      ['cutorch.getMemoryUsage'] = function() cutorch.getMemoryUsage(1) end,
      ['cutorch.emptyCache'] = function() cutorch.emptyCache() end,
      ['cutorch.synchronize'] = function() cutorch.synchronize() end,
      ['cutorch.synchronizeAll'] = function() cutorch.synchronizeAll() end,
      ['cutorch.manualSeed'] = function() cutorch.manualSeed(1) end,
      ['cutorch.manualSeedAll'] = function() cutorch.manualSeedAll(1) end,
      ['cutorch.initialSeed'] = function() cutorch.initialSeed() end,
      ['cutorch.reserveStreams'] = function() cutorch.reserveStreams(2) end,
      ['cutorch.setStream'] = function() cutorch.setStream(1) end,
      ['cutorch.getStream'] = function() cutorch.getStream() end,
      ['cutorch.getNumStreams'] = function() cutorch.getNumStreams() end,
      ['cutorch.streamSynchronize'] = function() cutorch.streamSynchronize(0) end,
      ['cutorch.streamWaitFor'] = function() cutorch.streamWaitFor(0, { 1 }) end,
      ['cutorch.streamWaitForMultiDevice'] = function() cutorch.streamWaitForMultiDevice(1, 0, { [1] = { 1 } }) end,
      ['cutorch.streamBarrier'] = function() cutorch.streamBarrier({ 0, 1 }) end,
      ['cutorch.streamBarrierMultiDevice'] = function() cutorch.streamBarrierMultiDevice({ [1] = { 0 } }) end,
      ['cutorch.getRNGState'] = function() cutorch.getRNGState() end,
      ['cutorch.setRNGState'] = function() cutorch.setRNGState(torch.ByteTensor(10)) end,
      ['cutorch.getPeerToPeerAccess'] = function() cutorch.getPeerToPeerAccess(1, 2) end,
      ['cutorch.setPeerToPeerAccess'] = function() cutorch.setPeerToPeerAccess(1, 2, true) end,
      ['cutorch.getKernelPeerToPeerAccess'] = function() cutorch.getKernelPeerToPeerAccess() end,
      ['cutorch.setKernelPeerToPeerAccess'] = function() cutorch.setKernelPeerToPeerAccess(true) end,
      ['torch.CudaTensor'] = function() torch.CudaTensor(2) end,
      ['torch.CudaDoubleTensor'] = function() torch.CudaDoubleTensor() end,
      ['torch.CudaLongTensor'] = function() torch.CudaLongTensor({ 1, 2 }) end,
      ['torch.CudaStorage'] = function() torch.CudaStorage(3) end,
      ['cuda'] = function() torch.FloatTensor(2):cuda() end,
      ['cudaDouble'] = function() torch.DoubleTensor(2):cudaDouble() end,
      ['cudaLong'] = function() torch.LongTensor(2):cudaLong() end,
      ['cutorch._ipcImport'] = function() cutorch._ipcImport(string.rep('x', 64), 0, 4, 1, 'Float') end,
   }
   for name, f in pairs(calls) do
      H.raises(name, f, name .. ':', 'no CUDA device is available')
   end
   -- type() names the conversion too.
   H.raises('type', function() torch.FloatTensor(2):type('torch.CudaTensor') end, 'no CUDA device is available')
end

-- A .t7 file holding a CudaTensor, as cutorch wrote it: the FloatTensor payload under the CUDA
-- class names.
local function cudaTensorFile()
   local m = torch.MemoryFile():binary()
   local function str(s)
      m:writeInt(#s)
      m:writeChar(torch.CharStorage():string(s))
   end
   m:writeInt(4) -- a torch object
   m:writeInt(1) -- its index
   str('V 1')
   str('torch.CudaTensor')
   m:writeInt(1) -- dimensions
   m:writeLong(torch.LongStorage({ 2 }))
   m:writeLong(torch.LongStorage({ 1 }))
   m:writeLong(1) -- offset
   m:writeInt(4)
   m:writeInt(2)
   str('V 1')
   str('torch.CudaStorage')
   m:writeLong(2)
   m:writeFloat(torch.FloatStorage({ 1.5, -2 }))
   local s = m:storage():string()
   m:close()
   return s:sub(1, -2)
end

function cases.loadingDeviceTensorsRaises()
   local path = os.tmpname()
   local f = assert(io.open(path, 'wb'))
   f:write(cudaTensorFile())
   f:close()
   H.raises('torch.load', function() torch.load(path) end, 'torch.CudaTensor', 'no CUDA device is available')
   H.raises('torch.deserialize', function() torch.deserialize(cudaTensorFile()) end, 'torch.CudaTensor',
      'no CUDA device is available')
   os.remove(path)
end

-- The exported C functions answer through FFI even with no device (no stream: NULL).
function cases.thcStateThroughFfi()
   local ffi = require 'ffi'
   ffi.cdef [[
      void *THCState_getCurrentStream(void *state);
      void *THCState_getCurrentStreamOnDevice(void *state, int device);
      int THCState_getNumDevices(void *state);
   ]]
   local state = cutorch.getState()
   H.check(ffi.C.THCState_getCurrentStream(state) == nil, 'no stream without a device')
   H.check(ffi.C.THCState_getCurrentStreamOnDevice(state, 0) == nil, 'no stream on device 0')
   H.eq(ffi.C.THCState_getNumDevices(state), 0, 'THCState_getNumDevices')
end

-- Host tensors keep working with cutorch loaded (its wrappers of copy and torch.* dispatch).
function cases.hostTensorsUnchanged()
   local a = torch.FloatTensor({ 1, 2, 3 })
   H.eq(torch.add(a, 1)[3], 4, 'torch.add')
   H.eq((a + a)[2], 4, 'operator +')
   H.eq(torch.sum(a), 6, 'torch.sum')
   H.eq(torch.mm(torch.ones(2, 3), torch.ones(3, 2))[1][1], 3, 'torch.mm')
   H.eq(torch.DoubleTensor(3):copy(a)[2], 2, 'copy')
   H.eq(torch.max(a), 3, 'torch.max')
   H.eq(torch.pow(2, a)[3], 8, 'torch.pow(number, tensor)')
   H.eq(torch.LongStorage(2):copy(torch.LongStorage({ 4, 5 }))[2], 5, 'storage copy')
   H.raises('torch.mm without tensors', function() torch.mm(1, 2) end, 'mm')
end

H.run(cases, 'nogpu', true)
