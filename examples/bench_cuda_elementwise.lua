-- Memory-bound work on the GPU: c = a + b and a:sum() over 2^28 floats (1 GiB per tensor), th beside
-- PyTorch (benches/cuda_elementwise_torch.py) in one run:
--    th examples/bench_cuda_elementwise.lua [log2 elements [reps]]
-- Each side times `reps` runs of each operation after a warm-up (synchronizing around each one)
-- and reports the median time and the bandwidth it implies (add reads two tensors and writes one,
-- sum reads one). Without a GPU it says so and stops.
require 'cutorch'

local LOG2 = tonumber(arg[1]) or 28
local REPS = tonumber(arg[2]) or 20
local N = 2 ^ LOG2

if cutorch.getDeviceCount() == 0 then
   local _, why = pcall(cutorch.getDevice)
   print('skipped: ' .. tostring(why))
   return
end

local function median(times)
   table.sort(times)
   return times[math.floor((#times + 1) / 2)]
end

local function time(f)
   f()
   cutorch.synchronize()
   local times = {}
   for i = 1, REPS do
      local t0 = sys.clock()
      f()
      cutorch.synchronize()
      times[i] = sys.clock() - t0
   end
   return median(times)
end

local a = torch.CudaTensor(N):uniform(-1, 1)
local b = torch.CudaTensor(N):uniform(-1, 1)
local c = torch.CudaTensor(N)
local th = {
   add = time(function() c:add(a, b) end),
   sum = time(function() return a:sum() end),
}
local bytes = { add = 3 * 4 * N, sum = 4 * N }

local dir = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local p = io.popen(string.format('python3 %q %d %d 2>&1', dir .. '../benches/cuda_elementwise_torch.py', LOG2, REPS))
local out = p and p:read('*a') or ''
if p then p:close() end
local pt = { add = tonumber(out:match('add=(%S+)')), sum = tonumber(out:match('sum=(%S+)')) }

print(string.format('device: %s, 2^%d floats', cutorch.getDeviceProperties(cutorch.getDevice()).name, LOG2))
print(string.format('%-6s %12s %10s %12s %10s %10s', 'op', 'th s', 'th GB/s', 'pytorch s', 'pt GB/s', 'th/pt bw'))
for _, op in ipairs { 'add', 'sum' } do
   local t, q = th[op], pt[op]
   if q then
      print(string.format('%-6s %12.6f %10.1f %12.6f %10.1f %9.0f%%', op, t, bytes[op] / t / 1e9, q, bytes[op] / q / 1e9,
         100 * q / t))
   else
      print(string.format('%-6s %12.6f %10.1f %12s %10s %10s', op, t, bytes[op] / t / 1e9, 'n/a', '', ''))
   end
end
if not pt.add then print('pytorch: n/a (' .. out:gsub('%s+$', ''):gsub('\n', ' '):sub(1, 300) .. ')') end
