-- cudnn.ffi: the part of NVIDIA cuDNN's C API that lua/cudnn calls, declared for LuaJIT's FFI, and
-- the search for a libcudnn to call it in.
--
-- Only the "v7-style" API is declared (handles, tensor/filter/convolution/pooling/activation
-- descriptors, cudnnGetConvolution*Algorithm_v7, cudnnFind*, the forward and backward calls):
-- cuDNN 7, 8 and 9 all export it with the same signatures and enum values, so one declaration
-- serves every version from 7.0 on and no particular version is demanded. A function that a
-- future cuDNN drops only takes its operation off cuDNN (see M.has), not the whole library.

local ffi = require 'ffi'

local M = {}

-- The libraries `preload` loaded (see there).
local preloaded = {}

-- Declared one piece at a time, each under pcall: a script (or an earlier luatorch module) may
-- have declared some of these types already, and LuaJIT refuses a second declaration.
local function cdef(s) pcall(ffi.cdef, s) end

cdef [[
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
typedef struct cudnnPoolingStruct *cudnnPoolingDescriptor_t;
typedef struct cudnnActivationStruct *cudnnActivationDescriptor_t;
typedef int cudnnStatus_t;
typedef struct {
   int algo; cudnnStatus_t status; float time; size_t memory; int determinism; int mathType; int reserved[3];
} luatorch_cudnnAlgoPerf_t;
]]

-- The stream cutorch work is queued on (exported by th; see src/cuda/ffi.rs). Declared with void*
-- so that it does not depend on cutorch's cudaStream_t typedef; where cutorch (or a script)
-- declared it first, that declaration stands and works the same.
cdef 'void *THCState_getCurrentStream(void *state);'

-- Every function with its own cdef: one that some version lacks does not stop the others.
local functions = {
   'size_t cudnnGetVersion(void);',
   'size_t cudnnGetCudartVersion(void);',
   'const char *cudnnGetErrorString(cudnnStatus_t status);',
   'cudnnStatus_t cudnnCreate(cudnnHandle_t *handle);',
   'cudnnStatus_t cudnnDestroy(cudnnHandle_t handle);',
   'cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, void *stream);',
   'cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d);',
   'cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d);',
   'cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t d, int dataType, int nbDims, const int dimA[], const int strideA[]);',
   'cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d);',
   'cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d);',
   'cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t d, int dataType, int format, int nbDims, const int filterDimA[]);',
   'cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d);',
   'cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d);',
   'cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t d, int arrayLength, const int padA[], const int filterStrideA[], const int dilationA[], int mode, int computeType);',
   'cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int groupCount);',
   'cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, int mathType);',
   'cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, int nbDims, int outDimA[]);',
   'cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t y, int requested, int *returned, luatorch_cudnnAlgoPerf_t *perf);',
   'cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t y, int requested, int *returned, luatorch_cudnnAlgoPerf_t *perf);',
   'cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t y, int algo, size_t *bytes);',
   'cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t xd, const void *x, cudnnFilterDescriptor_t wd, const void *w, cudnnConvolutionDescriptor_t c, int algo, void *ws, size_t wsBytes, const void *beta, cudnnTensorDescriptor_t yd, void *y);',
   'cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t h, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t dx, int requested, int *returned, luatorch_cudnnAlgoPerf_t *perf);',
   'cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t h, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t dx, int requested, int *returned, luatorch_cudnnAlgoPerf_t *perf);',
   'cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t h, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t dx, int algo, size_t *bytes);',
   'cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, const void *alpha, cudnnFilterDescriptor_t wd, const void *w, cudnnTensorDescriptor_t dyd, const void *dy, cudnnConvolutionDescriptor_t c, int algo, void *ws, size_t wsBytes, const void *beta, cudnnTensorDescriptor_t dxd, void *dx);',
   'cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t c, cudnnFilterDescriptor_t dw, int requested, int *returned, luatorch_cudnnAlgoPerf_t *perf);',
   'cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t c, cudnnFilterDescriptor_t dw, int requested, int *returned, luatorch_cudnnAlgoPerf_t *perf);',
   'cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t c, cudnnFilterDescriptor_t dw, int algo, size_t *bytes);',
   'cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t xd, const void *x, cudnnTensorDescriptor_t dyd, const void *dy, cudnnConvolutionDescriptor_t c, int algo, void *ws, size_t wsBytes, const void *beta, cudnnFilterDescriptor_t dwd, void *dw);',
   'cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t dyd, const void *dy, const void *beta, cudnnTensorDescriptor_t dbd, void *db);',
   'cudnnStatus_t cudnnAddTensor(cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t ad, const void *A, const void *beta, cudnnTensorDescriptor_t cd, void *C);',
   'cudnnStatus_t cudnnCreatePoolingDescriptor(cudnnPoolingDescriptor_t *d);',
   'cudnnStatus_t cudnnDestroyPoolingDescriptor(cudnnPoolingDescriptor_t d);',
   'cudnnStatus_t cudnnSetPoolingNdDescriptor(cudnnPoolingDescriptor_t d, int mode, int nanOpt, int nbDims, const int windowDimA[], const int paddingA[], const int strideA[]);',
   'cudnnStatus_t cudnnPoolingForward(cudnnHandle_t h, cudnnPoolingDescriptor_t p, const void *alpha, cudnnTensorDescriptor_t xd, const void *x, const void *beta, cudnnTensorDescriptor_t yd, void *y);',
   'cudnnStatus_t cudnnPoolingBackward(cudnnHandle_t h, cudnnPoolingDescriptor_t p, const void *alpha, cudnnTensorDescriptor_t yd, const void *y, cudnnTensorDescriptor_t dyd, const void *dy, cudnnTensorDescriptor_t xd, const void *x, const void *beta, cudnnTensorDescriptor_t dxd, void *dx);',
   'cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t *d);',
   'cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t d);',
   'cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t d, int mode, int nanOpt, double coef);',
   'cudnnStatus_t cudnnActivationForward(cudnnHandle_t h, cudnnActivationDescriptor_t a, const void *alpha, cudnnTensorDescriptor_t xd, const void *x, const void *beta, cudnnTensorDescriptor_t yd, void *y);',
   'cudnnStatus_t cudnnActivationBackward(cudnnHandle_t h, cudnnActivationDescriptor_t a, const void *alpha, cudnnTensorDescriptor_t yd, const void *y, cudnnTensorDescriptor_t dyd, const void *dy, cudnnTensorDescriptor_t xd, const void *x, const void *beta, cudnnTensorDescriptor_t dxd, void *dx);',
   'cudnnStatus_t cudnnSoftmaxForward(cudnnHandle_t h, int algo, int mode, const void *alpha, cudnnTensorDescriptor_t xd, const void *x, const void *beta, cudnnTensorDescriptor_t yd, void *y);',
   'cudnnStatus_t cudnnSoftmaxBackward(cudnnHandle_t h, int algo, int mode, const void *alpha, cudnnTensorDescriptor_t yd, const void *y, cudnnTensorDescriptor_t dyd, const void *dy, const void *beta, cudnnTensorDescriptor_t dxd, void *dx);',
   'cudnnStatus_t cudnnBatchNormalizationForwardTraining(cudnnHandle_t h, int mode, const void *alpha, const void *beta, cudnnTensorDescriptor_t xd, const void *x, cudnnTensorDescriptor_t yd, void *y, cudnnTensorDescriptor_t pd, const void *scale, const void *bias, double factor, void *runningMean, void *runningVar, double eps, void *saveMean, void *saveInvVar);',
   'cudnnStatus_t cudnnBatchNormalizationForwardInference(cudnnHandle_t h, int mode, const void *alpha, const void *beta, cudnnTensorDescriptor_t xd, const void *x, cudnnTensorDescriptor_t yd, void *y, cudnnTensorDescriptor_t pd, const void *scale, const void *bias, const void *mean, const void *var, double eps);',
   'cudnnStatus_t cudnnBatchNormalizationBackward(cudnnHandle_t h, int mode, const void *alphaData, const void *betaData, const void *alphaParam, const void *betaParam, cudnnTensorDescriptor_t xd, const void *x, cudnnTensorDescriptor_t dyd, const void *dy, cudnnTensorDescriptor_t dxd, void *dx, cudnnTensorDescriptor_t pd, const void *scale, void *dScale, void *dBias, double eps, const void *saveMean, const void *saveInvVar);',
}
for _, f in ipairs(functions) do cdef(f) end

-- The enum values (the same in cuDNN 7, 8 and 9).
M.enum = {
   SUCCESS = 0,
   FLOAT = 0, DOUBLE = 1,
   NCHW = 0,
   CROSS_CORRELATION = 1,
   DEFAULT_MATH = 0, FMA_MATH = 3, -- FMA_MATH (8.0+): no TF32, so float results match nn's
   NOT_PROPAGATE_NAN = 0, PROPAGATE_NAN = 1,
   POOLING_MAX = 0, POOLING_AVERAGE_INCLUDE_PADDING = 1, POOLING_AVERAGE_EXCLUDE_PADDING = 2,
   ACTIVATION_SIGMOID = 0, ACTIVATION_RELU = 1, ACTIVATION_TANH = 2, ACTIVATION_CLIPPED_RELU = 3,
   SOFTMAX_FAST = 0, SOFTMAX_ACCURATE = 1, SOFTMAX_LOG = 2,
   SOFTMAX_MODE_INSTANCE = 0, SOFTMAX_MODE_CHANNEL = 1,
   BATCHNORM_PER_ACTIVATION = 0, BATCHNORM_SPATIAL = 1,
}

-- The functions without which the library is not used at all (the convolutions and what
-- every call needs); the others are checked one by one with M.has.
local required = {
   'cudnnGetVersion', 'cudnnGetErrorString', 'cudnnCreate', 'cudnnSetStream',
   'cudnnCreateTensorDescriptor', 'cudnnDestroyTensorDescriptor', 'cudnnSetTensorNdDescriptor',
   'cudnnCreateFilterDescriptor', 'cudnnDestroyFilterDescriptor', 'cudnnSetFilterNdDescriptor',
   'cudnnCreateConvolutionDescriptor', 'cudnnDestroyConvolutionDescriptor', 'cudnnSetConvolutionNdDescriptor',
   'cudnnGetConvolutionForwardAlgorithm_v7', 'cudnnGetConvolutionForwardWorkspaceSize', 'cudnnConvolutionForward',
   'cudnnGetConvolutionBackwardDataAlgorithm_v7', 'cudnnGetConvolutionBackwardDataWorkspaceSize',
   'cudnnConvolutionBackwardData', 'cudnnGetConvolutionBackwardFilterAlgorithm_v7',
   'cudnnGetConvolutionBackwardFilterWorkspaceSize', 'cudnnConvolutionBackwardFilter',
   'cudnnConvolutionBackwardBias', 'cudnnAddTensor',
}

-- Whether `lib` exports `name` (a missing symbol raises when indexed).
local function exports(lib, name)
   return (pcall(function() return lib[name] end))
end

function M.has(name)
   return M.lib ~= nil and exports(M.lib, name)
end

local function exists(path)
   local f = io.open(path, 'rb')
   if f then f:close() return true end
   return false
end

local function isDir(path)
   return paths and paths.dirp and paths.dirp(path) or false
end

local function listDir(dir)
   local ok, names = pcall(function() return paths.dir(dir) end)
   return ok and names or {}
end

local sonames = { 'libcudnn.so.9', 'libcudnn.so.8', 'libcudnn.so.7', 'libcudnn.so' }

-- The libraries a libcudnn in directory `dir` loads by name (cuDNN 8 and 9 are split into
-- sub-libraries that the front library opens with dlopen), and, for a pip wheel's tree
-- (.../nvidia/cudnn/lib), the cuBLAS and NVRTC of the sibling wheels that those need: loaded
-- first, with global symbols, so that a directory outside the loader's search path works too.
-- Each is optional (pcall): a miss shows later as a cuDNN status, not here.
local function preload(dir)
   local nvidia = dir:match('^(.*/nvidia)/[^/]+/lib/?$')
   local dirs = {}
   if nvidia then
      for _, sub in ipairs { 'cu13/lib', 'cu12/lib', 'cublas/lib', 'cuda_nvrtc/lib', 'cuda_runtime/lib' } do
         dirs[#dirs + 1] = { nvidia .. '/' .. sub, { '^libcublasLt%.so%.%d+$', '^libcublas%.so%.%d+$',
            '^libnvrtc%.so%.%d+$', '^libcudart%.so%.%d+$' } }
      end
   end
   dirs[#dirs + 1] = { dir, { '^libcudnn_graph%.so%.%d+$', '^libcudnn_engines_precompiled%.so%.%d+$',
      '^libcudnn_engines_runtime_compiled%.so%.%d+$', '^libcudnn_heuristic%.so%.%d+$', '^libcudnn_ops.*%.so%.%d+$',
      '^libcudnn_cnn.*%.so%.%d+$', '^libcudnn_adv.*%.so%.%d+$' } }
   for _, d in ipairs(dirs) do
      local names = listDir(d[1])
      for _, pattern in ipairs(d[2]) do
         for _, name in ipairs(names) do
            if name:match(pattern) then
               local ok, l = pcall(ffi.load, d[1] .. '/' .. name, true)
               -- Kept for the life of the process: a collected clib is unloaded, and cuDNN
               -- calls into these through symbols it found in the global namespace.
               if ok then preloaded[#preloaded + 1] = l end
            end
         end
      end
   end
end

-- Directories a pip wheel of cuDNN (nvidia-cudnn-cu13/cu12) may be in: the site-packages of
-- the active virtual environment or conda, of the usual prefixes, and (last, since it starts a
-- process) those python3 itself names.
local function wheelDirs()
   local roots, seen = {}, {}
   local function add(sp)
      if sp and sp ~= '' and not seen[sp] then
         seen[sp] = true
         roots[#roots + 1] = sp
      end
   end
   local prefixes = { os.getenv('VIRTUAL_ENV'), os.getenv('CONDA_PREFIX'), '/usr/local', '/usr',
      (os.getenv('HOME') or '') .. '/.local' }
   for _, prefix in ipairs(prefixes) do
      if prefix and prefix ~= '' then
         for _, lib in ipairs { prefix .. '/lib', prefix .. '/lib64' } do
            for _, name in ipairs(listDir(lib)) do
               if name:match('^python3') then
                  add(lib .. '/' .. name .. '/site-packages')
                  add(lib .. '/' .. name .. '/dist-packages')
               end
            end
         end
      end
   end
   local out = {}
   local function collect()
      for _, sp in ipairs(roots) do
         for _, sub in ipairs { '/nvidia/cudnn/lib', '/nvidia/cu13/lib', '/nvidia/cu12/lib' } do
            if isDir(sp .. sub) then out[#out + 1] = sp .. sub end
         end
      end
   end
   collect()
   if #out == 0 then
      local p = io.popen([[python3 -c "import sys; print('\n'.join(sys.path))" 2>/dev/null]])
      if p then
         local listed = p:read('*a') or ''
         p:close()
         roots = {}
         for line in listed:gmatch('[^\n]+') do add(line) end
         collect()
      end
   end
   return out
end

-- Tries to open one candidate: a path to a file, a directory holding libcudnn.so.N, or a bare
-- soname for the loader's own search. Returns the library and what was opened, or nil and why.
local function open(candidate)
   local files = {}
   if candidate:find('/', 1, true) then
      if isDir(candidate) then
         for _, so in ipairs(sonames) do
            if exists(candidate .. '/' .. so) then files[#files + 1] = candidate .. '/' .. so end
         end
         if #files == 0 then return nil, candidate .. ' holds no libcudnn.so' end
      elseif exists(candidate) then
         files[1] = candidate
      else
         return nil, candidate .. ' does not exist'
      end
   else
      files[1] = candidate
   end
   local why
   for _, file in ipairs(files) do
      local dir = file:match('^(.*)/[^/]+$')
      if dir then preload(dir) end
      local ok, lib = pcall(ffi.load, file)
      if ok then return lib, file end
      why = tostring(lib)
   end
   return nil, why
end

-- Looks for a usable libcudnn: $CUDNN_PATH (a file or a directory) first, then libcudnn.so.9,
-- .8, .7 and libcudnn.so on the loader's path, then pip wheels. Sets M.lib, M.path and
-- M.version, or M.why (the reason none is used). Never raises.
function M.load()
   local tried = {}
   local candidates = {}
   local env = os.getenv('CUDNN_PATH')
   if env and env ~= '' then candidates[#candidates + 1] = env end
   for _, so in ipairs(sonames) do candidates[#candidates + 1] = so end
   local wheelsSearched = false
   local i = 1
   while true do
      local candidate = candidates[i]
      if candidate == nil then
         if wheelsSearched then break end
         wheelsSearched = true
         for _, d in ipairs(wheelDirs()) do candidates[#candidates + 1] = d end
         candidate = candidates[i]
         if candidate == nil then break end
      end
      i = i + 1
      local lib, where = open(candidate)
      if lib then
         local missing
         for _, name in ipairs(required) do
            if not exports(lib, name) then missing = name break end
         end
         if missing then
            tried[#tried + 1] = string.format('%s lacks %s (cuDNN older than 7?)', where, missing)
         else
            M.lib, M.path = lib, where
            M.version = tonumber(lib.cudnnGetVersion())
            return true
         end
      elseif candidate == env or candidate:find('/', 1, true) then
         tried[#tried + 1] = where
      end
   end
   M.why = 'no libcudnn found (tried $CUDNN_PATH, ' .. table.concat(sonames, ', ') ..
      ' and pip wheels nvidia-cudnn-cu13/cu12)'
   if #tried > 0 then M.why = M.why .. ': ' .. table.concat(tried, '; ') end
   return false
end

-- "9.1.0" from cudnnGetVersion's number (cuDNN 9 counts major*10000 + minor*100 + patch,
-- earlier versions major*1000 + minor*100 + patch).
function M.versionString(v)
   if not v then return nil end
   if v >= 10000 then
      return string.format('%d.%d.%d', math.floor(v / 10000), math.floor(v % 10000 / 100), v % 100)
   end
   return string.format('%d.%d.%d', math.floor(v / 1000), math.floor(v % 1000 / 100), v % 100)
end

return M
