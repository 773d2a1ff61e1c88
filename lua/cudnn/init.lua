-- The `cudnn` package (the API of soumith/cudnn.torch): nn modules whose work goes to NVIDIA's
-- cuDNN when a libcudnn can be loaded at run time, called through LuaJIT's FFI as cudnn.torch
-- did, and otherwise (no cuDNN, the mock CUDA driver, cudnn.enabled = false, a host tensor, a
-- case cuDNN does not cover) to the nn module's own code, which runs on CudaTensors through
-- cutorch's kernels. Every cudnn.X is a subclass of nn.X with the same fields, so results match
-- nn's, cudnn.convert only swaps classes, and saved models load either way.
--
-- Unlike cudnn.torch, no cuDNN version is demanded: any cuDNN from 7.0 on (which kept the
-- v7-style API through 8 and 9) is used, and without one `require 'cudnn'` still works.
-- cudnn.backend() says which path runs and why.

-- Without a usable GPU this fails saying why, as cudnn.torch's require did; nothing of cudnn is
-- left behind, and a second attempt says the same (Lua 5.1's require would otherwise answer it
-- with "loop or previous error").
do
   local ok, err = pcall(require, 'cutorch')
   if not ok then
      package.loaded.cudnn = nil
      error('cudnn: needs cutorch: ' .. tostring(err):gsub('^[^:]*:%d+: ', ''), 2)
   end
end
require 'nn'
-- cunn's CUDA versions of nn modules (where it provides them) serve the fallback path; cudnn.torch
-- did not need it, so its absence is no error.
pcall(require, 'cunn')

local ffi = require 'ffi'
local lib = require 'cudnn.ffi'
local E = lib.enum

local cudnn = rawget(_G, 'cudnn')
if type(cudnn) ~= 'table' then cudnn = {} end
rawset(_G, 'cudnn', cudnn)
package.loaded.cudnn = cudnn

-- The settings of cudnn.torch (benchmark: time every algorithm with cudnnFind* once per shape;
-- fastest: take the fastest algorithm whatever its workspace), plus `enabled` (false: every
-- module runs nn's code) and `allowTF32` (TF32 tensor-core maths for float convolutions on
-- Ampere and later: faster, but about 1e-3 relative error; off by default so that results
-- match nn's).
cudnn.benchmark = false
cudnn.fastest = false
cudnn.verbose = false
cudnn.enabled = true
cudnn.allowTF32 = false

---------------------------------------------------------------------------------------------------
-- Choosing the backend (once, at require).

-- One cuDNN handle per device, made on first use and kept for the life of the process: destroying
-- it at exit could run after the device's context is gone.
local handles = {}

local function statusString(status)
   local ok, s = pcall(function() return ffi.string(lib.lib.cudnnGetErrorString(status)) end)
   return ok and s or ('status ' .. tostring(status))
end

local function createHandle(device)
   -- Asking th for the stream makes the device's (primary) context current on this thread, the
   -- one cuDNN's runtime calls then work in.
   ffi.C.THCState_getCurrentStream(cutorch.getState())
   local h = ffi.new('cudnnHandle_t[1]')
   local status = lib.lib.cudnnCreate(h)
   if status ~= E.SUCCESS then
      error(string.format('cudnnCreate failed on device %d: %s', device, statusString(status)), 0)
   end
   handles[device] = h[0]
   return h[0]
end

local why -- why cuDNN is not used, nil when it is
local settings = require 'libsettings'
if settings.off('LUATORCH_CUDNN') then
   why = 'LUATORCH_CUDNN=0'
elseif not lib.load() then
   why = lib.why
else
   -- A library that loads may still not run here (a driver too old for it, a missing
   -- sub-library): try a handle now rather than fail in the first forward.
   local ok, err = pcall(createHandle, cutorch.getDevice())
   if not ok then
      why = string.format('%s (cuDNN %s from %s)', tostring(err), lib.versionString(lib.version), lib.path)
      lib.lib = nil
   end
end

cudnn.C = lib.lib
cudnn.version = lib.lib and lib.version or nil
cudnn.path = lib.lib and lib.path or nil

-- Which path the modules take: 'cudnn 9.1.0 from /path/libcudnn.so.9' or
-- 'luatorch kernels (why)'.
function cudnn.backend()
   if not lib.lib then return 'luatorch kernels (' .. why .. ')' end
   if not cudnn.enabled then return 'luatorch kernels (cudnn.enabled is false)' end
   return string.format('cudnn %s from %s', lib.versionString(lib.version), lib.path)
end

-- Whether `name` of the cuDNN API can be called now.
function cudnn.has(name)
   return cudnn.enabled ~= false and lib.lib ~= nil and lib.has(name)
end

if cudnn.verbose or settings.get('LUATORCH_CUDNN_VERBOSE') == '1' then
   io.stderr:write('cudnn: ' .. cudnn.backend() .. '\n')
end

---------------------------------------------------------------------------------------------------
-- Calls, handles, descriptors, workspace (the cuDNN path only).

cudnn.typemap = { ['torch.CudaTensor'] = E.FLOAT, ['torch.CudaDoubleTensor'] = E.DOUBLE }

-- The handle of the current device, set to cutorch's current stream (cudnn.torch's getHandle).
function cudnn.getHandle()
   if not lib.lib then error('cudnn.getHandle: cuDNN is not in use: ' .. cudnn.backend(), 2) end
   local device = cutorch.getDevice()
   local h = handles[device] or createHandle(device)
   local status = lib.lib.cudnnSetStream(h, ffi.C.THCState_getCurrentStream(cutorch.getState()))
   if status ~= E.SUCCESS then error('cudnnSetStream failed: ' .. statusString(status), 2) end
   return h
end

-- Calls cuDNN function `f`; a status other than success raises an error naming `who` and `f`.
function cudnn.errcheck(who, f, ...)
   local status = lib.lib[f](...)
   if status ~= E.SUCCESS then
      error(string.format('%s: %s failed: %s', who, f, statusString(status)), 0)
   end
end
local errcheck = cudnn.errcheck

-- Whether the cuDNN path can take these tensors: cuDNN in use and enabled, every tensor a
-- float or double CudaTensor of one type on the current device.
function cudnn.usable(...)
   if not lib.lib or not cudnn.enabled then return false end
   local first = select(1, ...)
   local tname = torch.type(first)
   if not cudnn.typemap[tname] then return false end
   local device = cutorch.getDevice()
   for i = 1, select('#', ...) do
      local t = select(i, ...)
      if t ~= nil then
         if torch.type(t) ~= tname or t:nElement() > 0 and t:getDevice() ~= device then return false end
      end
   end
   return true
end

-- Descriptors are cached by what they describe: they are small host objects, and the same few
-- shapes recur every iteration.
local descCache = {}

local function intArray(list)
   return ffi.new('int[?]', #list, list)
end

-- A tensor descriptor for sizes `sizes` (contiguous strides) of the type of tensor `t`; fewer
-- than 4 dimensions get trailing 1s (cuDNN wants at least 4).
function cudnn.tensorDescriptor(t, sizes)
   sizes = sizes or t:size():totable()
   local dims = {}
   for i, s in ipairs(sizes) do dims[i] = s end
   while #dims < 4 do dims[#dims + 1] = 1 end
   local dtype = cudnn.typemap[torch.type(t)]
   local key = 't' .. dtype .. ':' .. table.concat(dims, 'x')
   local d = descCache[key]
   if d then return d end
   local strides, acc = {}, 1
   for i = #dims, 1, -1 do
      strides[i] = acc
      acc = acc * dims[i]
   end
   local p = ffi.new('cudnnTensorDescriptor_t[1]')
   errcheck('cudnn', 'cudnnCreateTensorDescriptor', p)
   d = ffi.gc(p[0], lib.lib.cudnnDestroyTensorDescriptor)
   errcheck('cudnn', 'cudnnSetTensorNdDescriptor', d, dtype, #dims, intArray(dims), intArray(strides))
   descCache[key] = d
   return d
end

function cudnn.filterDescriptor(t, dims)
   local dtype = cudnn.typemap[torch.type(t)]
   local key = 'f' .. dtype .. ':' .. table.concat(dims, 'x')
   local d = descCache[key]
   if d then return d end
   local p = ffi.new('cudnnFilterDescriptor_t[1]')
   errcheck('cudnn', 'cudnnCreateFilterDescriptor', p)
   d = ffi.gc(p[0], lib.lib.cudnnDestroyFilterDescriptor)
   errcheck('cudnn', 'cudnnSetFilterNdDescriptor', d, dtype, E.NCHW, #dims, intArray(dims))
   descCache[key] = d
   return d
end

-- A convolution descriptor: pad, stride, dilation lists (in tensor order), group count.
function cudnn.convolutionDescriptor(t, pad, stride, dil, groups)
   local dtype = cudnn.typemap[torch.type(t)]
   local tf32 = cudnn.allowTF32 and 1 or 0
   local key = table.concat({ 'c', dtype, tf32, groups, table.concat(pad, ','), table.concat(stride, ','),
      table.concat(dil, ',') }, ':')
   local d = descCache[key]
   if d then return d end
   local p = ffi.new('cudnnConvolutionDescriptor_t[1]')
   errcheck('cudnn', 'cudnnCreateConvolutionDescriptor', p)
   d = ffi.gc(p[0], lib.lib.cudnnDestroyConvolutionDescriptor)
   errcheck('cudnn', 'cudnnSetConvolutionNdDescriptor', d, #pad, intArray(pad), intArray(stride), intArray(dil),
      E.CROSS_CORRELATION, dtype)
   if groups > 1 then
      if not lib.has('cudnnSetConvolutionGroupCount') then
         error('cudnn: this cuDNN has no grouped convolutions', 0)
      end
      errcheck('cudnn', 'cudnnSetConvolutionGroupCount', d, groups)
   end
   -- cuDNN 8 and later may use TF32 for float maths unless told FMA_MATH.
   if lib.has('cudnnSetConvolutionMathType') and (lib.version or 0) >= 8000 then
      errcheck('cudnn', 'cudnnSetConvolutionMathType', d, cudnn.allowTF32 and E.DEFAULT_MATH or E.FMA_MATH)
   end
   descCache[key] = d
   return d
end

-- alpha/beta arguments: a float for float tensors, a double for double ones.
function cudnn.scalar(t, v)
   if cudnn.typemap[torch.type(t)] == E.DOUBLE then return ffi.new('double[1]', v) end
   return ffi.new('float[1]', v)
end

-- One workspace per device, grown to the largest an algorithm asked for.
local workspaces = {}

function cudnn.getSharedWorkspace(bytes)
   bytes = bytes or 0
   local device = cutorch.getDevice()
   local ws = workspaces[device]
   if bytes == 0 then return nil, 0 end
   if not ws or ws:nElement() * 4 < bytes then
      ws = torch.CudaTensor(math.ceil(bytes / 4))
      workspaces[device] = ws
   end
   return ws:data(), ws:nElement() * 4
end

-- Algorithms, cached per convolution (its descriptors' keys) and pass.
local algoCache = {}

local passes = {
   forward = { find = 'cudnnFindConvolutionForwardAlgorithm', get = 'cudnnGetConvolutionForwardAlgorithm_v7',
      size = 'cudnnGetConvolutionForwardWorkspaceSize', count = 8 },
   backwardData = { find = 'cudnnFindConvolutionBackwardDataAlgorithm',
      get = 'cudnnGetConvolutionBackwardDataAlgorithm_v7', size = 'cudnnGetConvolutionBackwardDataWorkspaceSize',
      count = 6 },
   backwardFilter = { find = 'cudnnFindConvolutionBackwardFilterAlgorithm',
      get = 'cudnnGetConvolutionBackwardFilterAlgorithm_v7',
      size = 'cudnnGetConvolutionBackwardFilterWorkspaceSize', count = 7 },
}

-- The algorithm and workspace size for `pass` with descriptors a, b, c (conv), d in the order
-- that pass's cuDNN functions take them; `key` names the configuration.
function cudnn.algorithm(who, pass, key, a, b, conv, d)
   local p = passes[pass]
   local mode = cudnn.benchmark and 'find' or 'get'
   key = pass .. mode .. (cudnn.fastest and 'F' or '') .. ':' .. cutorch.getDevice() .. ':' .. key
   local hit = algoCache[key]
   if hit then return hit[1], hit[2] end
   local h = cudnn.getHandle()
   local perf = ffi.new('luatorch_cudnnAlgoPerf_t[?]', p.count)
   local n = ffi.new('int[1]')
   if mode == 'find' and lib.has(p.find) then
      -- cudnnFind* allocates its own workspace for the trials.
      errcheck(who, p.find, h, a, b, conv, d, p.count, n, perf)
   else
      errcheck(who, p.get, h, a, b, conv, d, p.count, n, perf)
   end
   -- Results come best first. Unless told `fastest`, the first that fits in the memory left
   -- (heuristics may rank one that needs gigabytes first).
   local free = math.huge
   if not cudnn.fastest then
      local ok, f = pcall(cutorch.getMemoryUsage, cutorch.getDevice())
      if ok and type(f) == 'number' then free = f * 0.9 end
   end
   local algo, bytes
   for i = 0, n[0] - 1 do
      if perf[i].status == E.SUCCESS then
         local size = ffi.new('size_t[1]')
         if lib.lib[p.size](h, a, b, conv, d, perf[i].algo, size) == E.SUCCESS then
            local need = tonumber(size[0])
            if need <= free or cudnn.fastest then
               algo, bytes = perf[i].algo, need
               break
            end
         end
      end
   end
   if not algo then
      error(string.format('%s: cuDNN offers no %s algorithm for this convolution', who, pass), 0)
   end
   if cudnn.verbose then
      print(string.format('cudnn: %s %s algorithm %d, workspace %d bytes', who, pass, algo, bytes))
   end
   algoCache[key] = { algo, bytes }
   return algo, bytes
end

-- Forgets the cached descriptors, algorithms and workspaces (after cudnn.benchmark changes, or
-- to give memory back).
function cudnn.reset()
   descCache, algoCache, workspaces = {}, {}, {}
   collectgarbage()
end

-- Per-module state of the cuDNN path, kept beside the modules (weak keys) rather than in their
-- fields: descriptors are FFI objects, which torch.save, clone and :type() must never see.
local states = setmetatable({}, { __mode = 'k' })
function cudnn.state(module)
   local s = states[module]
   if not s then
      s = {}
      states[module] = s
   end
   return s
end

-- A checked argument for the constructors: errors name the module, as nn's do.
function cudnn.checkArg(cond, who, fmt, ...)
   if not cond then error(who .. ': ' .. string.format(fmt, ...), 3) end
end

require 'cudnn.convolution'
require 'cudnn.pooling'
require 'cudnn.activation'
require 'cudnn.softmax'
require 'cudnn.normalization'
require 'cudnn.criterion'
require 'cudnn.convert'

return cudnn
