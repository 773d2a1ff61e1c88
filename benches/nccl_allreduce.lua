-- Our side of benches/nccl.rs: allReduce (sum, in place) of MiB mebibytes of float32 on a 1-rank
-- NCCL communicator, timed from the call to cutorch.synchronize(); the median of REPS after 5
-- warm-up calls. benches/nccl_allreduce_torch.py does the same through torch.distributed.
--
-- Run:  th benches/nccl_allreduce.lua [MiB] [reps]      (defaults 256, 20)
-- Prints `ours.allreduce <median seconds>`, or `SKIP: <why>` without cutorch, a GPU or NCCL.
require 'torch'

local ok, cutorch = pcall(require, 'cutorch')
if not ok or cutorch.getDeviceCount() < 1 then
   print('SKIP: no CUDA device (cutorch ' .. (ok and 'sees none' or 'is not available') .. ')')
   return
end
local nccl = require 'nccl'
local found, where = nccl.available()
if not found then
   print('SKIP: ' .. where)
   return
end

local mib = tonumber(arg[1]) or 256
local reps = tonumber(arg[2]) or 20
local n = mib * 1024 * 1024 / 4

local t = torch.CudaTensor(n):fill(1)
local comm = nccl.communicator(1, nccl.uniqueId(), 0)
for _ = 1, 5 do comm:allReduce(t) end
cutorch.synchronize()

local times = {}
for i = 1, reps do
   local timer = torch.Timer()
   comm:allReduce(t)
   cutorch.synchronize()
   times[i] = timer:time().real
end
-- One rank: the sum is the input itself.
assert(t:max() == 1 and t:min() == 1, 'the allReduce changed the data')
comm:destroy()

table.sort(times)
print(string.format('nccl %s', select(2, nccl.version())))
print(string.format('ours.allreduce %.6f', times[math.floor((reps + 1) / 2)]))
