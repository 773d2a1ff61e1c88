-- An 8192x8192 float32 matrix product on the GPU, cutorch (cuBLAS through th) beside PyTorch's
-- torch.mm, in one run:
--    th examples/bench_cuda_mm.lua [size [reps]]
-- Each side times `reps` products after a warm-up (synchronizing around each one) and reports the
-- median time and TFLOP/s; the PyTorch side is benches/cuda_mm_torch.py, run with python3 when
-- PyTorch with CUDA is installed. Without a GPU it says so and stops.
require 'cutorch'

local N = tonumber(arg[1]) or 8192
local REPS = tonumber(arg[2]) or 20

if cutorch.getDeviceCount() == 0 then
   local _, why = pcall(cutorch.getDevice)
   print('skipped: ' .. tostring(why))
   return
end

local function median(times)
   table.sort(times)
   return times[math.floor((#times + 1) / 2)]
end

local a = torch.CudaTensor(N, N):uniform(-1, 1)
local b = torch.CudaTensor(N, N):uniform(-1, 1)
local c = torch.CudaTensor(N, N)
c:mm(a, b) -- warm-up: the cuBLAS handle, the kernels' choice
cutorch.synchronize()
local times = {}
for i = 1, REPS do
   local t0 = sys.clock()
   c:mm(a, b)
   cutorch.synchronize()
   times[i] = sys.clock() - t0
end
local t = median(times)
local flops = 2 * N ^ 3
local props = cutorch.getDeviceProperties(cutorch.getDevice())
print(string.format('device: %s', props.name))
print(string.format('%-10s %8s %12s %10s', 'side', 'size', 'median s', 'TFLOP/s'))
print(string.format('%-10s %8d %12.6f %10.2f', 'th', N, t, flops / t / 1e12))

-- The same product with PyTorch, when it is there.
local dir = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local script = dir .. '../benches/cuda_mm_torch.py'
local p = io.popen(string.format('python3 %q %d %d 2>&1', script, N, REPS))
local out = p and p:read('*a') or ''
if p then p:close() end
local pt = tonumber(out:match('seconds=(%S+)'))
if pt then
   print(string.format('%-10s %8d %12.6f %10.2f', 'pytorch', N, pt, flops / pt / 1e12))
   print(string.format('th / pytorch time: %.2fx', t / pt))
else
   print('pytorch: n/a (' .. (out:gsub('%s+$', ''):gsub('\n', ' '):sub(1, 300)) .. ')')
end
