-- Memory over a long training run (issue: "memory flat over 10^4 iterations"): the LeNet of
-- examples/bench_nn.lua trained for `steps` steps (10000 by default), printing every 1000 steps
-- the resident memory, again after a full collection, and the Lua heap.
--    th examples/bench_nn_memory.lua [steps]
-- Resident memory rises over the first steps while the allocator's arenas settle, then stays flat.
require 'nn'
torch.setnumthreads(1)
torch.setdefaulttensortype('torch.FloatTensor')
torch.manualSeed(1)
local function rss()
   local f = io.open('/proc/self/statm'); local _, res = f:read('*n', '*n'); f:close()
   return res * 4096 / 2 ^ 20
end
local model = nn.Sequential()
   :add(nn.SpatialConvolution(3, 6, 5, 5)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
   :add(nn.SpatialConvolution(6, 16, 5, 5)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
   :add(nn.View(16 * 5 * 5)):add(nn.Linear(400, 120)):add(nn.ReLU()):add(nn.Linear(120, 84)):add(nn.ReLU())
   :add(nn.Linear(84, 10)):add(nn.LogSoftMax())
local input = torch.randn(64, 3, 32, 32)
local criterion = nn.ClassNLLCriterion()
local target = torch.Tensor(64)
for i = 1, 64 do target[i] = (i % 10) + 1 end
for i = 1, tonumber(arg[1]) or 10000 do
   model:zeroGradParameters()
   local out = model:forward(input)
   criterion:forward(out, target)
   model:backward(input, criterion:backward(out, target))
   model:updateParameters(0.01)
   if i % 1000 == 0 then
      local a = rss(); collectgarbage(); collectgarbage()
      print(i, string.format('%.1f MiB (%.1f after a full collection), Lua heap %.1f MiB', a, rss(), collectgarbage('count') / 1024))
      io.stdout:flush()
   end
end
