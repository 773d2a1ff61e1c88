-- Many small operations on the GPU, each making a temporary tensor, as training loops do:
-- th with the caching allocator, th without it (THC_CACHING_ALLOCATOR=0, a second th process),
-- and PyTorch (benches/cuda_small_ops_torch.py) doing the same, in one run:
--    th examples/bench_cuda_small_ops.lua [elements [rounds]]
-- A round is y = (x + 1) * 2, y:t():contiguous(), y:sum(2), a copy to a host number every 16
-- rounds; each side reports microseconds per round (median of 5 timings of `rounds` rounds).
-- Without a GPU it says so and stops.
require 'cutorch'

local N = tonumber(arg[1]) or 65536
local ROUNDS = tonumber(arg[2]) or 2000
local ONLY = arg[3] == '--only-th'

if cutorch.getDeviceCount() == 0 then
   local _, why = pcall(cutorch.getDevice)
   print('skipped: ' .. tostring(why))
   return
end

local side = 256
local x = torch.CudaTensor(N / side, side):uniform()
local function rounds(n)
   local total = 0
   for i = 1, n do
      local y = torch.add(x, 1):mul(2)
      local z = y:t():contiguous():sum(2)
      if i % 16 == 0 then total = total + z[1][1] end
   end
   return total
end

rounds(50)
cutorch.synchronize()
local times = {}
for i = 1, 5 do
   local t0 = sys.clock()
   rounds(ROUNDS)
   cutorch.synchronize()
   times[i] = (sys.clock() - t0) / ROUNDS * 1e6
end
table.sort(times)
local us = times[3]
if ONLY then
   print(string.format('us=%.3f', us))
   return
end

local cache = os.getenv('THC_CACHING_ALLOCATOR') ~= '0' and 'on' or 'off'
print(string.format('device: %s, %d elements, %d rounds', cutorch.getDeviceProperties(cutorch.getDevice()).name, N,
   ROUNDS))
print(string.format('%-24s %12s', 'side', 'us / round'))
print(string.format('%-24s %12.2f', 'th (cache ' .. cache .. ')', us))

local dir = debug.getinfo(1, 'S').source:match('^@(.*/)') or './'
local function run(cmd)
   local p = io.popen(cmd .. ' 2>&1')
   local out = p and p:read('*a') or ''
   if p then p:close() end
   return tonumber(out:match('us=(%S+)')), out
end

local th = paths.concat(paths.execdir(), 'th')
local script = debug.getinfo(1, 'S').source:match('^@(.*)$')
local uncached, out = run(string.format('THC_CACHING_ALLOCATOR=0 %q %q %d %d --only-th', th, script, N, ROUNDS))
if uncached then
   print(string.format('%-24s %12.2f', 'th (cache off)', uncached))
   print(string.format('cache on / cache off time: %.2fx', us / uncached))
else
   print('th (cache off): n/a (' .. out:gsub('%s+$', ''):sub(1, 300) .. ')')
end
local pt
pt, out = run(string.format('python3 %q %d %d', dir .. '../benches/cuda_small_ops_torch.py', N, ROUNDS))
if pt then
   print(string.format('%-24s %12.2f', 'pytorch', pt))
   print(string.format('th / pytorch time: %.2fx', us / pt))
else
   print('pytorch: n/a (' .. out:gsub('%s+$', ''):gsub('\n', ' '):sub(1, 300) .. ')')
end
