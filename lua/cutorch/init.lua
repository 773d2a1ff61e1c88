-- The `cutorch` package: the device functions (cutorch.*), the classes torch.CudaTensor,
-- torch.CudaDoubleTensor, torch.CudaLongTensor and their storages over the native `libcutorch`,
-- conversions between host and device (:cuda(), :float(), copy), and the torch.* functions for
-- device tensors.
--
-- Without a usable GPU (no driver, no device, CUDA_VISIBLE_DEVICES empty), `require 'cutorch'`
-- fails, as cutorch's does, saying why: scripts detect a GPU with pcall(require, 'cutorch'). It
-- fails before anything is defined, so nothing of cutorch is left half made.

local torch = require 'torch'
local C = require 'libcutorch'
local ffi = require 'ffi'

-- MPS (several processes sharing a GPU through NVIDIA's Multi-Process Service): cutorch.mps()
-- says whether a control daemon serves this process; LUATORCH_CUDA_VERBOSE=1 says it at load, before
-- CUDA starts, so that it shows also where the GPU cannot be had.
local mps = require 'cutorch.mps'
local verbose = require('libsettings').get('LUATORCH_CUDA_VERBOSE')
if verbose ~= nil and verbose ~= '0' then
   io.stderr:write('cutorch: ', mps.describe(mps.probe()), '\n')
end

if C.getDeviceCount() == 0 then
   -- Lua 5.1's require would otherwise answer a second attempt with "loop or previous error".
   package.loaded.cutorch = nil
   local pipe = os.getenv('CUDA_MPS_PIPE_DIRECTORY')
   if pipe == nil or pipe == '' then C.requireDevice('cutorch') end
   -- With MPS asked for, a daemon that is gone or refuses this user is a likely cause (in
   -- EXCLUSIVE_PROCESS mode the GPU then reads as busy): say what the pipe directory shows.
   local ok, err = pcall(C.requireDevice, 'cutorch')
   if not ok then error(tostring(err) .. ' [' .. mps.describe(mps.probe()) .. ']', 0) end
end

local cutorch = rawget(_G, 'cutorch')
if type(cutorch) ~= 'table' then cutorch = {} end
rawset(_G, 'cutorch', cutorch)
package.loaded.cutorch = cutorch
cutorch._C = C

for _, name in ipairs { 'getDeviceCount', 'setDevice', 'getDevice', 'getDeviceProperties', 'getMemoryUsage',
   'synchronize', 'synchronizeAll', 'manualSeed', 'manualSeedAll', 'initialSeed', 'seed', 'seedAll', 'getState',
   'getRNGState', 'setRNGState',
   'reserveStreams', 'getNumStreams', 'setStream', 'setDefaultStream', 'getStream', 'streamSynchronize',
   'getPeerToPeerAccess', 'setPeerToPeerAccess', 'getKernelPeerToPeerAccess', 'setKernelPeerToPeerAccess',
   'emptyCache', '_ipcExport', '_ipcImport', '_currentStreamAddress' } do
   cutorch[name] = C[name]
end

-- What FFI code written against cutorch declares on top of cutorch's own declarations: the
-- stream type and cutorch's C functions, which `th` exports (scripts call them through ffi.C,
-- e.g. ffi.C.THCState_getCurrentStream(cutorch.getState()) to queue NCCL work on our stream).
-- Each declaration is made on its own, so one a script made first does not stop the others.
for _, decl in ipairs {
   'typedef struct CUstream_st *cudaStream_t;',
   'typedef struct THCState THCState;',
   'cudaStream_t THCState_getCurrentStream(THCState *state);',
   'cudaStream_t THCState_getCurrentStreamOnDevice(THCState *state, int device);',
   'int THCState_getNumDevices(THCState *state);',
} do
   pcall(ffi.cdef, decl)
end

-- Scripts written against NCCL 1.x load it with ffi.load('libnccl.so.1'): th's own library with
-- that interface is loaded now, so that bare name finds it (src/cuda/nccl/v1.rs). Where it
-- is, or why it could not be provided.
do
   local path, why = require('libnccl').provideV1()
   cutorch._nccl1 = path or why
end

-- cutorch.mps(): nil, or a table saying whether an MPS control daemon serves this process
-- (lua/cutorch/mps.lua lists its fields). Cheap (a few file reads) and never raises.
cutorch.mps = mps.probe

-- No torch.CudaHalfTensor here: code that checks before using half precision takes its float path.
cutorch.hasHalf = false

---------------------------------------------------------------------------------------------------
-- Ordering streams (cutorch's low-level stream functions): a stream waits for what is queued on
-- others when the call is made, without the host waiting.

-- The stream numbers of list `streams` (argument `pos` of `method`), appended to `places` as
-- (device, stream) pairs.
local function addStreams(places, device, streams, method, pos)
   if type(streams) ~= 'table' then
      error(string.format('%s: bad argument #%d (table of stream numbers expected, got %s)', method, pos,
         type(streams)), 3)
   end
   for _, s in ipairs(streams) do
      if type(s) ~= 'number' or s < 0 or s % 1 ~= 0 then
         error(string.format('%s: bad argument #%d (stream numbers expected, got %s)', method, pos,
            tostring(s)), 3)
      end
      places[#places + 1] = device
      places[#places + 1] = s
   end
   return places
end

-- {[device] = {streams...}, ...} as (device, stream) pairs.
local function addDeviceStreams(places, byDevice, method, pos)
   if type(byDevice) ~= 'table' then
      error(string.format('%s: bad argument #%d (table of {[device] = {streams...}} expected, got %s)', method,
         pos, type(byDevice)), 3)
   end
   for device, streams in pairs(byDevice) do
      if type(device) ~= 'number' then
         error(string.format('%s: bad argument #%d (device numbers as keys expected, got %s)', method, pos,
            tostring(device)), 3)
      end
      addStreams(places, device, streams, method, pos)
   end
   return places
end

-- cutorch.streamWaitFor(waiting, {streams...}): on the current device.
function cutorch.streamWaitFor(waiting, streams)
   local method = 'cutorch.streamWaitFor'
   C.requireDevice(method)
   local device = cutorch.getDevice()
   C._streamWait(method, device, waiting, addStreams({}, device, streams, method, 2))
end

-- cutorch.streamWaitForMultiDevice(device, waiting, {[device] = {streams...}, ...}).
function cutorch.streamWaitForMultiDevice(device, waiting, byDevice)
   local method = 'cutorch.streamWaitForMultiDevice'
   C._streamWait(method, device, waiting, addDeviceStreams({}, byDevice, method, 3))
end

-- cutorch.streamBarrier({streams...}): every listed stream of the current device waits for all.
function cutorch.streamBarrier(streams)
   local method = 'cutorch.streamBarrier'
   C.requireDevice(method)
   C._streamBarrier(method, addStreams({}, cutorch.getDevice(), streams, method, 1))
end

-- cutorch.streamBarrierMultiDevice({[device] = {streams...}, ...}).
function cutorch.streamBarrierMultiDevice(byDevice)
   local method = 'cutorch.streamBarrierMultiDevice'
   C._streamBarrier(method, addDeviceStreams({}, byDevice, method, 1))
end

-- cutorch.withDevice(device, f): runs f with `device` current, then restores the previous one.
local function restore(previous, ok, ...)
   cutorch.setDevice(previous)
   if not ok then error((...), 0) end
   return ...
end

function cutorch.withDevice(device, f)
   local previous = cutorch.getDevice()
   cutorch.setDevice(device)
   return restore(previous, pcall(f))
end

---------------------------------------------------------------------------------------------------
-- Classes.

-- Element type -> (class prefix, host tensor class, FFI pointer type of data()).
local kinds = {
   Float = { prefix = 'Cuda', host = 'torch.FloatTensor', ctype = 'float*' },
   Double = { prefix = 'CudaDouble', host = 'torch.DoubleTensor', ctype = 'double*' },
   Long = { prefix = 'CudaLong', host = 'torch.LongTensor', ctype = 'int64_t*' },
}

-- Class names of the device tensors and storages.
local cudaTypes = {}
cutorch._types = cudaTypes

local tensorClasses = {}
for _, T in ipairs(C.types) do
   local kind = kinds[T]
   local tname = 'torch.' .. kind.prefix .. 'Tensor'
   local sname = 'torch.' .. kind.prefix .. 'Storage'
   cudaTypes[tname], cudaTypes[sname] = 'tensor', 'storage'
   torch[kind.prefix .. 'Tensor'], torch[kind.prefix .. 'Storage'] = torch._nativeClasses(C, T, tname, sname)
   local tclass, sclass = torch.getmetatable(tname), torch.getmetatable(sname)

   -- t:data() and s:data(): the device address as an FFI pointer, as cutorch's FFI layer gave.
   local ctype = ffi.typeof(kind.ctype)
   tclass.data = function(self) return ffi.cast(ctype, C.dataAddress(self)) end
   sclass.data = tclass.data
   tclass.totable = function(self) return self:type(kind.host):totable() end
   sclass.totable = function(self) return C.storageToHost(self):totable() end
   tensorClasses[#tensorClasses + 1] = tclass
end

local typename = torch.typename
local function isCuda(v)
   return cudaTypes[typename(v)] == 'tensor'
end
cutorch._isCudaTensor = isCuda

-- The maths (lua/cutorch/Tensor.lua): methods of the device classes, and the torch.* functions
-- that device tensors dispatch to.
local maths = require 'cutorch.Tensor'
for _, class in ipairs(tensorClasses) do
   for k, f in pairs(maths.methods) do class[k] = f end
end

-- The host tensor methods written in Lua (type conversions, views built from views, operators)
-- serve the device classes too.
for _, file in ipairs { 'torch.Tensor', 'torch.math' } do
   local methods = require(file)
   for _, class in ipairs(tensorClasses) do
      for k, f in pairs(methods) do
         if rawget(class, k) == nil then class[k] = f end
      end
   end
end

---------------------------------------------------------------------------------------------------
-- Host <-> device.

-- :cuda(), :cudaDouble(), :cudaLong() on every tensor class (host and device).
local conversions = { cuda = 'torch.CudaTensor', cudaDouble = 'torch.CudaDoubleTensor',
   cudaLong = 'torch.CudaLongTensor' }
local allTensorClasses = {}
for _, T in ipairs(torch.types) do
   allTensorClasses[#allTensorClasses + 1] = torch.getmetatable('torch.' .. T .. 'Tensor')
end
for _, class in ipairs(tensorClasses) do allTensorClasses[#allTensorClasses + 1] = class end
for method, name in pairs(conversions) do
   for _, class in ipairs(allTensorClasses) do
      class[method] = function(self)
         C.requireDevice(method)
         return self:type(name)
      end
   end
end

-- Host tensors and storages copy from device ones too (as cutorch made them).
for _, T in ipairs(torch.types) do
   local tclass = torch.getmetatable('torch.' .. T .. 'Tensor')
   local hostCopy = tclass.copy
   tclass.copy = function(self, src)
      if isCuda(src) then return C.copyToHost(self, src) end
      return hostCopy(self, src)
   end
   local sclass = torch.getmetatable('torch.' .. T .. 'Storage')
   local hostStorageCopy = sclass.copy
   sclass.copy = function(self, src)
      if cudaTypes[typename(src)] == 'storage' then src = C.storageToHost(src) end
      return hostStorageCopy(self, src)
   end
end

-- torch.f(...) goes to the device version when its first tensor argument (or the first tensor of
-- a list of them, as torch.cat takes) is a device tensor.
local function firstTensorIsCuda(...)
   for i = 1, select('#', ...) do
      local v = select(i, ...)
      if type(v) == 'table' then v = rawget(v, 1) end
      if type(v) == 'userdata' then return isCuda(v) end
   end
   return false
end

for name, f in pairs(maths.functions) do
   local host = torch[name]
   torch[name] = function(...)
      if firstTensorIsCuda(...) then return f(...) end
      if host == nil then error('torch.' .. name .. ': expected CUDA tensors', 2) end
      return host(...)
   end
end

-- .t7 files now load their CUDA tensors onto the device.
C._loadFilesOnDevice()

return cutorch
