-- A CUDA tensor from one process to another on the same GPU, beside an in-process device-to-device
-- copy of the same size, in one run:
--    th examples/bench_cuda_ipc.lua [MiB [reps]]
-- Four ways, each timed `reps` times after a warm-up, medians reported with GB/s (bytes moved
-- once) and the ratio to the in-process copy:
--  * copy      dst:copy(src) in this process, synchronized;
--  * mapped    in the child, a copy out of this process's memory (a tensor received by parallel,
--              mapped by CUDA IPC handle) into the child's own: the device-to-device copy between
--              two processes itself;
--  * parallel  parallel's send of the tensor to a child, which receives it and answers (the
--              sender's staging copy, the handle, the child's mapping of it, the answer);
--  * ipc       an ipc client's send(tensor) to a server in the child, which receives it into its
--              own tensor (the child's device-to-device copy out of the sender's memory) and
--              acknowledges; send returns then.
-- Without a GPU it says so and stops.
require 'cutorch'
require 'parallel'
local ipc = require 'libipc'

local MIB = tonumber(arg[1]) or 256
local REPS = tonumber(arg[2]) or 20

if cutorch.getDeviceCount() == 0 then
   local _, why = pcall(cutorch.getDevice)
   print('skipped: ' .. tostring(why))
   return
end

local n = MIB * 2 ^ 20 / 4
local bytes = n * 4

local function median(times)
   table.sort(times)
   return times[math.floor((#times + 1) / 2)]
end

local function timed(fn)
   fn() -- warm-up
   local times = {}
   for i = 1, REPS do
      cutorch.synchronize()
      local t0 = sys.clock()
      fn()
      cutorch.synchronize()
      times[i] = sys.clock() - t0
   end
   return median(times)
end

local src = torch.CudaTensor(n):uniform()
local dst = torch.CudaTensor(n)
local results = {}
results[#results + 1] = { 'copy', timed(function() dst:copy(src) end) }

-- The child receives by parallel, then serves one ipc client.
local child = parallel.fork()
child:exec(function()
   require 'cutorch'
   local ipc = require 'libipc'
   -- The copy out of the mapped memory, timed here.
   local reps = parallel.parent:receive()
   local mapped = parallel.parent:receive()
   local own = torch.CudaTensor(mapped:size())
   own:copy(mapped)
   local times = {}
   for i = 1, reps do
      cutorch.synchronize()
      local t0 = sys.clock()
      own:copy(mapped)
      cutorch.synchronize()
      times[i] = sys.clock() - t0
   end
   table.sort(times)
   parallel.parent:send(times[math.floor((reps + 1) / 2)])
   mapped, own = nil, nil
   collectgarbage()
   while true do
      local t = parallel.parent:receive()
      if t == 'ipc' then break end
      t = nil
      collectgarbage() -- releases the mapping: the sender reuses its staging memory
      parallel.parent:send('ok')
   end
   local n = parallel.parent:receive()
   local server, port = ipc.server('127.0.0.1')
   parallel.parent:send(port)
   local into = torch.CudaTensor(n)
   server:clients(1, function(c)
      while true do
         local more = c:recv()
         if not more then break end
         c:recv(into)
      end
   end)
   server:close()
end)

child:send(REPS)
child:send(src)
results[#results + 1] = { 'mapped', (child:receive()) }

results[#results + 1] = { 'parallel', timed(function()
   child:send(src)
   assert(child:receive() == 'ok')
end) }

child:send('ipc')
child:send(n)
local port = child:receive()
local client = ipc.client('127.0.0.1', port)
results[#results + 1] = { 'ipc', timed(function()
   client:send(true)
   client:send(src)
end) }
client:send(false)
local stats = client:netStats()
client:close()
parallel.close()

local props = cutorch.getDeviceProperties(cutorch.getDevice())
print(string.format('device: %s, %d MiB float32, median of %d', props.name, MIB, REPS))
print(string.format('%-10s %12s %10s %12s', 'way', 'median s', 'GB/s', 'vs copy'))
local base = results[1][2]
for _, r in ipairs(results) do
   print(string.format('%-10s %12.6f %10.1f %12.3f', r[1], r[2], bytes / r[2] / 1e9, base / r[2]))
end
print(string.format('ipc client tx: %.0f bytes by CUDA IPC handle', stats.tx.cuda_ipc_bytes))
