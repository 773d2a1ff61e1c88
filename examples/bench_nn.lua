-- Forward + backward + sgd update of two networks, timed as PyTorch's side does it
-- (benches/nn_torch.py), with the same thread count:
--    th examples/bench_nn.lua [threads [steps]]
-- mlp: 784-1024-1024-10 with ReLU, batch 128, float32; lenet: a LeNet-style convnet on 3x32x32
-- images, batch 64. Each prints the median seconds per step of `steps` steps after a warm-up,
-- and the process's resident memory before and after (memory must stay flat).
require 'nn'
local threads = tonumber(arg[1]) or 1
local steps = tonumber(arg[2]) or 50
torch.setnumthreads(threads)
torch.setdefaulttensortype('torch.FloatTensor')
torch.manualSeed(1)

local function rss()
   local f = io.open('/proc/self/statm')
   if not f then return 0 end
   local _, res = f:read('*n', '*n')
   f:close()
   return res * 4096 / 2 ^ 20
end

local function mlp()
   return nn.Sequential()
      :add(nn.Linear(784, 1024)):add(nn.ReLU())
      :add(nn.Linear(1024, 1024)):add(nn.ReLU())
      :add(nn.Linear(1024, 10)):add(nn.LogSoftMax()), torch.randn(128, 784), 128
end

local function lenet()
   return nn.Sequential()
      :add(nn.SpatialConvolution(3, 6, 5, 5)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
      :add(nn.SpatialConvolution(6, 16, 5, 5)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
      :add(nn.View(16 * 5 * 5))
      :add(nn.Linear(400, 120)):add(nn.ReLU())
      :add(nn.Linear(120, 84)):add(nn.ReLU())
      :add(nn.Linear(84, 10)):add(nn.LogSoftMax()), torch.randn(64, 3, 32, 32), 64
end

local function bench(name, build)
   local model, input, batch = build()
   local criterion = nn.ClassNLLCriterion()
   local target = torch.Tensor(batch)
   for i = 1, batch do target[i] = (i % 10) + 1 end
   local function step()
      model:zeroGradParameters()
      local out = model:forward(input)
      criterion:forward(out, target)
      model:backward(input, criterion:backward(out, target))
      model:updateParameters(0.01)
   end
   for _ = 1, 3 do step() end
   local before = rss()
   local times = {}
   local timer = torch.Timer()
   for i = 1, steps do
      timer:reset()
      step()
      times[i] = timer:time().real
   end
   table.sort(times)
   print(string.format('%s\t%.6f\t%.1f\t%.1f', name, times[math.floor((steps + 1) / 2)], before, rss()))
end

print('net\tseconds/step\trss_before_MiB\trss_after_MiB')
bench('mlp', mlp)
bench('lenet', lenet)
