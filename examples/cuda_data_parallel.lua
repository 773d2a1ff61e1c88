-- cuda_data_parallel.lua: data-parallel training across GPUs. The parent forks one worker per GPU
-- with parallel, makes an NCCL unique id and sends it to every worker; each worker joins the
-- communicator as its rank, trains the same small network on its own shard of the data, and
-- averages its gradients with the others' (comm:allReduce(g, 'avg')) every step before updating.
-- All workers start from the same weights and apply the same averaged gradients, so they end with
-- the same weights: they send them to the parent as CUDA tensors (by CUDA IPC handle), which
-- checks that.
--
-- The network is a 2-layer perceptron (tanh hidden layer) with hand-written gradients, learning to
-- imitate a fixed random "teacher" network of the same shape (mean squared error).
--
-- Run:  th examples/cuda_data_parallel.lua [workers] [steps]
--       workers: default one per GPU (at most one per GPU); steps: default 300.
-- It runs on one GPU with one worker. It needs cutorch with a device, and the NCCL library (see
-- `require 'nccl'`).

require 'parallel'
local nccl = require 'nccl'

local D, H = 16, 64 -- inputs, hidden units (one output)
local SAMPLES, BATCH = 8192, 256 -- per worker
local LR = 0.2

-- Runs in each worker (a fresh th process: CUDA is safe to use there).
local function worker()
   require 'torch'
   local cutorch = require 'cutorch'
   local nccl = require 'nccl'
   local job = parallel.parent:receive()
   local rank, D, H = job.rank, job.D, job.H
   cutorch.setDevice(rank + 1)
   local comm = nccl.communicator(job.nranks, job.id, rank)

   -- The data: inputs with a constant 1 appended (the hidden layer's bias lives in W1's last row),
   -- targets from the teacher. Each worker draws its own shard.
   local function network(seed)
      torch.manualSeed(seed)
      return torch.randn(D + 1, H):div(math.sqrt(D)), torch.randn(H, 1):div(math.sqrt(H))
   end
   local T1, T2 = network(job.teacherSeed)
   torch.manualSeed(job.dataSeed + rank)
   local x = torch.ones(job.samples, D + 1)
   x:narrow(2, 1, D):copy(torch.randn(job.samples, D))
   local y = torch.tanh(x * T1) * T2
   x, y = x:cuda(), y:cuda()

   -- The model: the same initial weights on every worker.
   local W1, W2 = network(job.modelSeed)
   W1, W2 = W1:cuda(), W2:cuda()
   local gW1, gW2 = W1:clone():zero(), W2:clone():zero()
   local z, h, s, pred, d, dh = torch.CudaTensor(), torch.CudaTensor(), torch.CudaTensor(), torch.CudaTensor(),
      torch.CudaTensor(), torch.CudaTensor()

   local losses = {}
   local timer = torch.Timer()
   for step = 1, job.steps do
      local first = ((step - 1) * job.batch) % job.samples + 1
      local xb, yb = x:narrow(1, first, job.batch), y:narrow(1, first, job.batch)
      -- forward
      z:resize(job.batch, H):mm(xb, W1)
      h:resizeAs(z):copy(z):tanh()
      pred:resize(job.batch, 1):mm(h, W2)
      d:resizeAs(pred):copy(pred):add(-1, yb)
      local loss = d:dot(d) / job.batch
      -- backward: dloss/dpred = 2 (pred - y) / batch
      d:mul(2 / job.batch)
      gW2:mm(h:t(), d)
      dh:resize(job.batch, H):mm(d, W2:t())
      s:resizeAs(h):copy(h):cmul(h):mul(-1):add(1) -- tanh' = 1 - tanh^2
      dh:cmul(s)
      gW1:mm(xb:t(), dh)
      -- the data-parallel step: every worker gets the mean gradient
      comm:allReduce(gW1, 'avg')
      comm:allReduce(gW2, 'avg')
      W1:add(-job.lr, gW1)
      W2:add(-job.lr, gW2)
      if step == 1 or step % 50 == 0 or step == job.steps then
         losses[#losses + 1] = { step, loss }
      end
   end
   cutorch.synchronize()
   local seconds = timer:time().real
   parallel.parent:send({
      rank = rank,
      losses = losses,
      seconds = seconds,
      -- the weights, to check that every worker ended with the same: CUDA tensors, which reach
      -- the parent by CUDA IPC handle (no trip through host memory)
      W1 = W1,
      W2 = W2,
   })
   comm:destroy()
end

local function parent()
   local ok, cutorch = pcall(require, 'cutorch')
   local gpus = ok and cutorch.getDeviceCount() or 0
   if gpus < 1 then
      error('this example needs a CUDA device (' .. (ok and 'cutorch sees none' or 'no cutorch') .. ')', 0)
   end
   local workers = tonumber(arg[1]) or gpus
   local steps = tonumber(arg[2]) or 300
   if workers < 1 or workers > gpus then
      error(string.format('%d worker(s) asked for, %d GPU(s) here: one worker per GPU', workers, gpus), 0)
   end
   local id = nccl.uniqueId()
   parallel.print(string.format('%d worker(s), %d steps, NCCL %s', workers, steps, select(2, nccl.version())))

   local forked = parallel.nfork(workers)
   forked:exec(worker)
   for i = 1, workers do
      forked[i]:send({
         id = id, rank = i - 1, nranks = workers, steps = steps, D = D, H = H, samples = SAMPLES,
         batch = BATCH, lr = LR, teacherSeed = 1, modelSeed = 2, dataSeed = 100,
      })
   end
   local results = forked:receive()

   for i = 1, workers do
      results[i].W1, results[i].W2 = results[i].W1:float(), results[i].W2:float()
   end
   local first = results[1]
   for _, entry in ipairs(first.losses) do
      parallel.print(string.format('step %4d   loss (worker 1) %.5f', entry[1], entry[2]))
   end
   for i = 1, workers do
      local r = results[i]
      parallel.print(string.format('worker %d: %d steps in %.2f s (%.0f steps/s)', i, steps, r.seconds,
         steps / r.seconds))
      assert(torch.equal(r.W1, first.W1) and torch.equal(r.W2, first.W2),
         'worker ' .. i .. ' ended with other weights than worker 1')
   end
   local start, final = first.losses[1][2], first.losses[#first.losses][2]
   assert(final < start, string.format('the loss did not go down (%.5f -> %.5f)', start, final))
   parallel.print(string.format('every worker ends with the same weights; loss %.5f -> %.5f', start, final))
end

local ok, err = pcall(parent)
parallel.close()
if not ok then
   print('cuda_data_parallel: ' .. tostring(err))
   os.exit(1)
end
