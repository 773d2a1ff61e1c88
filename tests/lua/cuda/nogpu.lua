-- cutorch on a machine with no usable GPU (tests/cutorch.rs runs it with CUDA_VISIBLE_DEVICES set
-- to nothing, so it holds on GPU machines too): require 'cutorch' fails saying why, as cutorch's
-- does, and leaves nothing behind; the native layer's device calls each raise an error naming the
-- call.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local C = require 'libcutorch'

local cases = {}

function cases.requireFails()
   for attempt = 1, 2 do
      local ok, err = pcall(require, 'cutorch')
      H.check(not ok, 'require succeeded (attempt %d)', attempt)
      H.check(tostring(err):find('cutorch: no CUDA device is available', 1, true) ~= nil, 'message: %s', err)
   end
   H.check(package.loaded.cutorch == nil, 'package.loaded.cutorch is set')
   H.check(rawget(_G, 'cutorch') == nil, 'the cutorch global is set')
   for _, name in ipairs { 'CudaTensor', 'CudaDoubleTensor', 'CudaLongTensor', 'CudaStorage' } do
      H.check(torch[name] == nil, 'torch.%s exists', name)
   end
   H.check(torch.FloatTensor(2).cuda == nil, ':cuda() on host tensors')
   H.eq(C.getDeviceCount(), 0, 'device count')
   H.check(H.noGpu() ~= nil, 'the helpers see no GPU')
end

-- require 'cunn' fails as cutorch's does, every time, leaving nothing behind.
function cases.requireCunnFails()
   for attempt = 1, 2 do
      local ok, err = pcall(require, 'cunn')
      H.check(not ok, 'require succeeded (attempt %d)', attempt)
      H.check(tostring(err):find('cutorch: no CUDA device is available', 1, true) ~= nil, 'message: %s', err)
   end
   H.check(package.loaded.cunn == nil, 'package.loaded.cunn is set')
   H.check(rawget(_G, 'cunn') == nil, 'the cunn global is set')
end

function cases.deviceCallsRaise()
   local calls = {
      setDevice = function() C.setDevice(1) end,
      getDevice = function() C.getDevice() end,
      getDeviceProperties = function() C.getDeviceProperties(1) end,
      getMemoryUsage = function() C.getMemoryUsage(1) end,
      emptyCache = function() C.emptyCache() end,
      synchronize = function() C.synchronize() end,
      synchronizeAll = function() C.synchronizeAll() end,
      manualSeed = function() C.manualSeed(1) end,
      manualSeedAll = function() C.manualSeedAll(1) end,
      initialSeed = function() C.initialSeed() end,
      reserveStreams = function() C.reserveStreams(2) end,
      setStream = function() C.setStream(1) end,
      getStream = function() C.getStream() end,
      getNumStreams = function() C.getNumStreams() end,
      streamSynchronize = function() C.streamSynchronize(0) end,
      getRNGState = function() C.getRNGState() end,
      setRNGState = function() C.setRNGState(torch.ByteTensor(10)) end,
      getPeerToPeerAccess = function() C.getPeerToPeerAccess(1, 2) end,
      setPeerToPeerAccess = function() C.setPeerToPeerAccess(1, 2, true) end,
      getKernelPeerToPeerAccess = function() C.getKernelPeerToPeerAccess() end,
      setKernelPeerToPeerAccess = function() C.setKernelPeerToPeerAccess(true) end,
      _ipcImport = function() C._ipcImport(string.rep('x', 64), 0, 4, 1, 'Float') end,
   }
   for name, f in pairs(calls) do
      H.raises(name, f, 'cutorch.' .. name .. ':', 'no CUDA device is available')
   end
   -- Without cutorch, a device type is not a type.
   H.raises('type', function() torch.FloatTensor(2):type('torch.CudaTensor') end, 'unknown tensor type')
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

function cases.deviceTensorFilesLoadAsHostTensors()
   -- Without cutorch, device classes load as the host ones (as before cutorch).
   local path = os.tmpname()
   local f = assert(io.open(path, 'wb'))
   f:write(cudaTensorFile())
   f:close()
   for _, t in ipairs { torch.load(path), torch.deserialize(cudaTensorFile()) } do
      H.eq(torch.type(t), 'torch.FloatTensor', 'type')
      H.eq(t[1], 1.5, 'value')
   end
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
   local state = C.getState()
   H.check(ffi.C.THCState_getCurrentStream(state) == nil, 'no stream without a device')
   H.check(ffi.C.THCState_getCurrentStreamOnDevice(state, 0) == nil, 'no stream on device 0')
   H.eq(ffi.C.THCState_getNumDevices(state), 0, 'THCState_getNumDevices')
end

-- Host tensors keep working after the failed require.
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
