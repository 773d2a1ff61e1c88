-- Forward + backward of the fused nn passes alone (softmax, log-softmax, batch normalisation,
-- criterions), timed as PyTorch's side does it (benches/nn_kernels_torch.py), same thread count:
--    th examples/bench_nn_kernels.lua [threads [steps]]
-- Each line: the case and the median seconds of one forward + backward over `steps` runs after a
-- warm-up. Float32 throughout. Running it with an older th times the tensor-method paths.
require 'nn'
local threads = tonumber(arg[1]) or 1
local steps = tonumber(arg[2]) or 50
torch.setnumthreads(threads)
torch.setdefaulttensortype('torch.FloatTensor')
torch.manualSeed(1)

local function median(f)
   for _ = 1, 3 do f() end
   local times = {}
   local timer = torch.Timer()
   for i = 1, steps do
      timer:reset()
      f()
      times[i] = timer:time().real
   end
   table.sort(times)
   return times[math.floor((steps + 1) / 2)]
end

local function module(name, m, input)
   local g = torch.randn(input:size())
   print(string.format('%s\t%.6f', name, median(function()
      m:forward(input)
      m:backward(input, g)
   end)))
end

local function criterion(name, c, input, target)
   print(string.format('%s\t%.6f', name, median(function()
      c:forward(input, target)
      c:backward(input, target)
   end)))
end

local classes = torch.LongTensor(256)
for i = 1, 256 do classes[i] = (i * 7) % 1000 + 1 end

print('case\tseconds')
module('softmax 256x1000', nn.SoftMax(), torch.randn(256, 1000))
module('logsoftmax 256x1000', nn.LogSoftMax(), torch.randn(256, 1000))
module('spatial_softmax 16x32x32x32', nn.SpatialSoftMax(), torch.randn(16, 32, 32, 32))
module('batchnorm 256x1024', nn.BatchNormalization(1024), torch.randn(256, 1024))
module('spatial_batchnorm 32x64x32x32', nn.SpatialBatchNormalization(64), torch.randn(32, 64, 32, 32))
criterion('mse 256x1024', nn.MSECriterion(), torch.randn(256, 1024), torch.randn(256, 1024))
criterion('smoothl1 256x1024', nn.SmoothL1Criterion(), torch.randn(256, 1024), torch.randn(256, 1024))
criterion('bce 256x1024', nn.BCECriterion(), torch.rand(256, 1024):mul(0.9):add(0.05), torch.rand(256, 1024))
criterion('classnll 256x1000', nn.ClassNLLCriterion(), torch.randn(256, 1000), classes)
criterion('crossentropy 256x1000', nn.CrossEntropyCriterion(), torch.randn(256, 1000), classes)
