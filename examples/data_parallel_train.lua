-- data_parallel_train.lua: the job of the seed's Train.lua (CCorfield/Torch-parallel-nccl-MPS-Example)
-- done with this project's modules: one network trained by N worker processes, any number per GPU,
-- or on CPUs, from one script.
--
--  * The parent builds the model from nn modules (the seed's Linear(10,20)-Linear(20,1) with an
--    MSECriterion by default, `--model conv` a LeNet-style convnet on synthetic 1x32x32 images),
--    the criterion kept as `model.criterion` as the seed does, and forks N workers with
--    parallel.nfork / children:exec.
--  * It broadcasts the model (its architecture and parameters) to every worker with
--    parallel.children:send, so every replica starts from the parent's parameters.
--  * Every update, each worker computes the gradient of its own synthetic batch and the workers
--    average their gradients: on GPUs with NCCL (nccl.localCommunicator(N, id, rank), comm:allReduce(g,
--    'avg')), on CPUs with an ipc Tree (ipc.LocalhostTree over loopback, tree.allReduce(g, add),
--    then / N). Then each applies the same optimizer step (optim.sgd, or its Nesterov variant) to
--    the flat parameters from getParameters, so the replicas stay identical.
--  * At the end every worker sends its final parameters; the parent checks that they are all
--    equal (bit for bit) and exits with status 1 when they are not. It prints the time per update
--    spent in compute, in the gradient allreduce (the sync: it includes waiting for the slowest
--    worker) and in the optimizer step, and the sync's share (the per-update overhead of going
--    data-parallel). On GPUs each phase ends with cutorch.synchronize() so the split is real.
--  * It saves the trained model with torch.save, reloads it with torch.load and checks that the
--    reloaded model gives the same output and loss on a test batch.
--  * The loss (the mean over workers) is logged with optim.Logger and plotted (an EPS file beside
--    the log; without gnuplot the plot is skipped with a warning).
--  * The last line is a summary with updates/s (see examples/bench_data_parallel.lua).
--
-- Run:  th examples/data_parallel_train.lua [options]      (-h lists them)
--   th examples/data_parallel_train.lua --cpu --workers 2 --steps 300
--   th examples/data_parallel_train.lua --workers 4 --gpus 2             (2 workers per GPU, as the seed)
--   th examples/data_parallel_train.lua --model conv --workers 4 --globalbatch 64
--
-- Several workers on one GPU: NCCL 2.5 to 2.29 refuses two ranks on one device ("Duplicate GPU
-- detected"), so the workers join nccl.localCommunicator, which sums the workers of a GPU through
-- CUDA IPC and runs NCCL among one worker per GPU (and needs no NCCL at all with one GPU). Run
-- the workers of one GPU under MPS (scripts/mps) for their kernels to overlap.
--
-- Batches: `--batch B` is each worker's batch per update (the seed's numSamplesPerUpdate, 1 by
-- default for the small model); `--globalbatch G` instead splits G samples among the workers, so
-- an update does the same work whatever the number of workers (what a speed-up is measured on).

require 'torch'
require 'nn'
require 'optim'
require 'parallel'

local cmd = torch.CmdLine()
cmd:text('Data-parallel training of one nn model by N workers (NCCL on GPUs, an ipc Tree on CPUs)')
cmd:text('Options:')
cmd:option('--workers', 0, 'worker processes (default: 2 per GPU, as the seed; 2 on CPU)')
cmd:option('--gpus', 0, 'GPUs to use (default: every visible one); workers are spread over them in blocks')
cmd:option('--cpu', false, 'train on CPUs even when a GPU is there')
cmd:option('--model', 'small', 'small (the seed: Linear(10,20), Linear(20,1), MSE) or conv (LeNet-style, 1x32x32)')
cmd:option('--steps', 200, 'updates')
cmd:option('--batch', 0, 'samples per worker per update (default: 1 for small, as the seed; 16 for conv)')
cmd:option('--globalbatch', 0, 'samples per update, split among the workers (overrides --batch)')
cmd:option('--optim', 'sgd', 'sgd (with momentum) or nesterov')
cmd:option('--lr', 0, 'learning rate (default: 0.05 small, 0.02 conv)')
cmd:option('--momentum', 0.9, 'momentum')
cmd:option('--seed', 1, 'random seed (model; each worker draws its data with seed + rank)')
cmd:option('--threads', 1, 'torch threads per worker')
cmd:option('--logevery', 0, 'log the loss every this many updates (default: steps / 50)')
cmd:option('--dir', '.', 'directory of the saved model, the log and its plot')
cmd:option('--name', '', 'file name stem (default: data_parallel_<model>)')
cmd:option('--display', false, 'also show the plot on screen (it is always written to <log>.eps)')
cmd:option('--timeout', 60, 'seconds any wait for the other workers may take (connect, NCCL)')
cmd:option('--quiet', false, 'print only the checks and the summary')
cmd:option('--faultrank', -1, 'testing: the worker of this rank perturbs its final parameters (the check must fail)')
local opt = cmd:parse(arg or {})

-- parallel.close() ends the workers (once: it is also called once they have reported).
local closed = false
local function close()
   if not closed then
      closed = true
      parallel.close()
   end
end

local function fail(msg)
   io.stderr:write('data_parallel_train: ' .. msg .. '\n')
   close()
   os.exit(1)
end

if opt.model ~= 'small' and opt.model ~= 'conv' then fail('--model must be small or conv, got ' .. opt.model) end
if opt.optim ~= 'sgd' and opt.optim ~= 'nesterov' then fail('--optim must be sgd or nesterov, got ' .. opt.optim) end
if opt.steps < 1 then fail('--steps must be at least 1') end

-- The device: GPUs unless --cpu, or cutorch is missing, or it sees none.
local gpus = 0
if not opt.cpu then
   local ok, cutorch = pcall(require, 'cutorch')
   if ok and type(cutorch) == 'table' then
      local has, n = pcall(cutorch.getDeviceCount)
      if has and n then gpus = n end
   end
   if opt.gpus > 0 then
      if opt.gpus > gpus then fail(string.format('--gpus %d: %d GPU(s) here', opt.gpus, gpus)) end
      gpus = opt.gpus
   end
end
local onGPU = gpus > 0
local N = opt.workers > 0 and opt.workers or (onGPU and 2 * gpus or 2)
if N ~= math.floor(N) then fail('--workers must be a whole number') end
local batch = opt.batch > 0 and opt.batch or (opt.model == 'small' and 1 or 16)
if opt.globalbatch > 0 then
   if opt.globalbatch % N ~= 0 then
      fail(string.format('--globalbatch %d is not a multiple of %d workers', opt.globalbatch, N))
   end
   batch = opt.globalbatch / N
end
local lr = opt.lr > 0 and opt.lr or (opt.model == 'small' and 0.05 or 0.02)
local name = opt.name ~= '' and opt.name or ('data_parallel_' .. opt.model)
local logevery = opt.logevery > 0 and opt.logevery or math.max(1, math.floor(opt.steps / 50))
local say = opt.quiet and function() end or print

torch.setdefaulttensortype('torch.FloatTensor')

-- The synthetic data, as the seed's DataSets does it: each call draws a fresh batch from the
-- torch RNG. It travels to the workers inside the job (a function with no upvalues: it uses only
-- globals and its arguments). small: a one-hot 1x10 input for n in 1..10 and the target n % 2.
-- conv: one of 10 fixed random prototypes (drawn from a seed every process shares) plus noise,
-- labelled by its class.
local function makeData(kind, batchSize, dataSeed, protoSeed)
   local input, target
   local prototypes
   if kind == 'conv' then
      local gen = torch.Generator()
      torch.manualSeed(gen, protoSeed)
      prototypes = torch.FloatTensor(10, 1, 32, 32)
      prototypes:normal(gen, 0, 1)
      input = torch.FloatTensor(batchSize, 1, 32, 32)
      target = torch.FloatTensor(batchSize)
   else
      input = torch.FloatTensor(batchSize, 10)
      target = torch.FloatTensor(batchSize, 1)
   end
   local gen = torch.Generator()
   torch.manualSeed(gen, dataSeed)
   return function()
      if kind == 'conv' then
         input:normal(gen, 0, 0.5)
         for i = 1, batchSize do
            local c = torch.random(gen, 1, 10)
            input[i]:add(prototypes[c])
            target[i] = c
         end
      else
         input:zero()
         for i = 1, batchSize do
            local n = torch.random(gen, 1, 10)
            input[i][n] = 1
            target[i][1] = n % 2
         end
      end
      return input, target
   end
end

local function buildModel(kind)
   local model
   if kind == 'conv' then
      model = nn.Sequential()
         :add(nn.SpatialConvolution(1, 6, 5, 5)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
         :add(nn.SpatialConvolution(6, 16, 5, 5)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
         :add(nn.View(16 * 5 * 5))
         :add(nn.Linear(400, 120)):add(nn.ReLU())
         :add(nn.Linear(120, 84)):add(nn.ReLU())
         :add(nn.Linear(84, 10)):add(nn.LogSoftMax())
      model.criterion = nn.ClassNLLCriterion()
   else
      model = nn.Sequential():add(nn.Linear(10, 20)):add(nn.Linear(20, 1))
      model.criterion = nn.MSECriterion()
   end
   return model
end

-- One worker: a fresh th process started by parallel. Its upvalues do not travel (parallel binds
-- them to the child's globals of the same name), so everything it needs comes in the job.
local function worker()
   require 'torch'
   require 'nn'
   require 'optim'
   local job = parallel.parent:receive()
   local model = parallel.parent:receive() -- the parent's model: the broadcast of the parameters
   local rank, N = job.rank, job.nranks
   torch.setnumthreads(job.threads)
   torch.setdefaulttensortype('torch.FloatTensor')

   local cutorch, comm, tree
   if job.gpu then
      cutorch = require 'cutorch'
      require 'cunn'
      cutorch.setDevice(job.gpu)
      model:cuda() -- every field, model.criterion included
   end
   local criterion = model.criterion
   local params, grads = model:getParameters()
   local function sync()
      if cutorch then cutorch.synchronize() end
   end

   -- Join the others. One worker alone has nothing to average (a clean baseline).
   if N > 1 then
      if job.gpu then
         local nccl = require 'nccl'
         nccl.timeout = job.timeout
         comm = nccl.localCommunicator(N, job.ncclId, rank)
      else
         local ipc = require 'libipc'
         ipc.connecttimeout = job.timeout
         ipc.accepttimeout = job.timeout
         tree = require 'ipc.LocalhostTree'(rank + 1, N, job.treeKey)
      end
   end
   local function add(a, b) return a:add(b) end
   local function allReduceMean(g)
      if comm then
         comm:allReduce(g, 'avg')
      elseif tree then
         local sum = tree.allReduce(g, add)
         if sum ~= g then g:copy(sum) end
         g:div(N)
      end
   end

   local nextBatch = job.makeData(job.model, job.batch, job.seed + 1000 * (rank + 1), job.seed)
   local input, target
   if job.gpu then input, target = torch.CudaTensor(), torch.CudaTensor() end

   local config = { learningRate = job.lr, momentum = job.momentum, dampening = 0,
      nesterov = job.optim == 'nesterov' }
   local state = {}
   local losses = {}
   local t = { data = 0, compute = 0, sync = 0, update = 0 }
   local timer, clock = torch.Timer(), torch.Timer()
   local loss
   local function feval()
      clock:reset()
      local x, y = nextBatch()
      if job.gpu then
         input:resize(x:size()):copy(x)
         target:resize(y:size()):copy(y)
      else
         input, target = x, y
      end
      t.data = t.data + clock:time().real
      clock:reset()
      grads:zero()
      local output = model:forward(input)
      loss = criterion:forward(output, target)
      model:backward(input, criterion:backward(output, target))
      sync()
      t.compute = t.compute + clock:time().real
      clock:reset()
      allReduceMean(grads)
      sync()
      t.sync = t.sync + clock:time().real
      clock:reset()
      return loss, grads
   end

   model:training()
   sync()
   timer:reset()
   for step = 1, job.steps do
      optim.sgd(feval, params, config, state)
      sync()
      t.update = t.update + clock:time().real
      losses[step] = loss
   end
   local seconds = timer:time().real

   if comm then comm:destroy() end
   if tree then tree.close() end
   if rank == job.faultrank then params:narrow(1, 1, 1):add(1e-3) end
   parallel.parent:send({
      rank = rank,
      seconds = seconds,
      times = t,
      losses = losses,
      params = params:float():clone(), -- the final replica, compared by the parent
   })
end

local function parent()
   torch.manualSeed(opt.seed)
   local model = buildModel(opt.model)
   local params = model:getParameters()
   local where = onGPU and string.format('%d GPU(s)', gpus) or 'CPU'
   say(string.format('model %s: %d parameters; %d workers on %s; %d updates of %d samples per worker; %s lr %g',
      opt.model, params:nElement(), N, where, opt.steps, batch, opt.optim, lr))

   local ncclId, treeKey
   if onGPU and N > 1 then
      local nccl = require 'nccl'
      if gpus > 1 and not nccl.available() then
         fail('NCCL is needed for workers on several GPUs: ' .. select(2, nccl.available()))
      end
      -- its 128 bytes as a string: the workers need not have loaded nccl to receive it
      ncclId = nccl.localUniqueId():bytes()
      say(nccl.available() and string.format('NCCL %s', select(2, nccl.version())) or 'one GPU: no NCCL needed')
   elseif N > 1 then
      treeKey = string.format('data_parallel_%d_%d', require('libipc').getpid(), os.time())
   end

   local wall = torch.Timer()
   local workers = parallel.nfork(N)
   workers:exec(worker)
   for i = 1, N do
      local rank = i - 1
      workers[i]:send({
         rank = rank, nranks = N, model = opt.model, batch = batch, steps = opt.steps, lr = lr,
         momentum = opt.momentum, optim = opt.optim, seed = opt.seed, threads = opt.threads,
         timeout = opt.timeout, faultrank = opt.faultrank, makeData = makeData, ncclId = ncclId, treeKey = treeKey,
         -- workers in blocks of ceil(N / gpus): neighbours share a GPU, as in the seed
         gpu = onGPU and (math.floor(rank * gpus / N) + 1) or nil,
      })
   end
   workers:send(model) -- the broadcast: every replica starts from these parameters
   local results = workers:receive()
   local wallSeconds = wall:time().real
   close() -- the workers are done

   -- The replicas must be identical.
   local ref = results[1].params
   local differ = {}
   for i = 2, N do
      local p = results[i].params
      if not torch.equal(p, ref) then
         differ[#differ + 1] = string.format('worker %d (max |diff| %g)', i, (p - ref):abs():max())
      end
   end
   if #differ > 0 then
      fail('replicas DIFFER from worker 1: ' .. table.concat(differ, ', '))
   end
   print(string.format('replicas identical: %d workers, %d parameters, checksum %.10g', N, ref:nElement(),
      ref:double():sum()))

   -- The loss, averaged over the workers, logged and plotted.
   local logfile = paths.concat(opt.dir, name .. '.log')
   local logger = optim.Logger(logfile)
   logger:setNames({ 'training loss (mean over workers)' })
   logger:style({ '-' })
   local function meanLoss(step)
      local s = 0
      for i = 1, N do s = s + results[i].losses[step] end
      return s / N
   end
   for step = 1, opt.steps do
      -- each point: the mean of the window ending at `step`
      if step % logevery == 0 or step == opt.steps then
         local first, s = math.max(1, step - logevery + 1), 0
         for k = first, step do s = s + meanLoss(k) end
         local l = s / (step - first + 1)
         logger:add({ l })
         if step % (10 * logevery) == 0 or step == opt.steps then
            say(string.format('update %5d  loss %.5f', step, l))
         end
      end
   end
   logger:display(opt.display)
   local plotted, perr = pcall(logger.plot, logger)
   if not plotted then print('warning: the loss was not plotted: ' .. tostring(perr)) end
   print(string.format('loss logged to %s%s', logfile,
      (plotted and paths.filep(logger.epsfile)) and (' and plotted to ' .. logger.epsfile) or ''))

   -- Save the trained model, reload it, and check it computes the same.
   params:copy(ref)
   local file = paths.concat(opt.dir, name .. '.t7')
   model:evaluate()
   torch.save(file, model)
   local loaded = torch.load(file)
   loaded:evaluate()
   local input, target = makeData(opt.model, 64, opt.seed + 999, opt.seed)()
   local expected = model:forward(input):clone()
   local got = loaded:forward(input)
   local testLoss = model.criterion:forward(expected, target)
   if torch.type(loaded.criterion) ~= torch.type(model.criterion) then
      fail('the reloaded model has no ' .. torch.type(model.criterion) .. ' as its criterion')
   end
   if not torch.equal(got, expected) or loaded.criterion:forward(got, target) ~= testLoss then
      fail(string.format('the reloaded model from %s computes differently (max |diff| %g)', file,
         (got - expected):abs():max()))
   end
   print(string.format('saved and reloaded %s: same output on a test batch of 64 (test loss %.5f)', file, testLoss))

   -- Where the time went, per update, averaged over the workers.
   local avg = { data = 0, compute = 0, sync = 0, update = 0 }
   local slowest = 0
   for i = 1, N do
      for k in pairs(avg) do avg[k] = avg[k] + results[i].times[k] / N / opt.steps end
      slowest = math.max(slowest, results[i].seconds)
   end
   local total = avg.data + avg.compute + avg.sync + avg.update
   print(string.format('per update: data %.3f ms, compute %.3f ms, allreduce/sync %.3f ms, optimizer %.3f ms;'
      .. ' sync overhead %.1f%% of the update (%.2fx the compute)', 1e3 * avg.data, 1e3 * avg.compute,
      1e3 * avg.sync, 1e3 * avg.update, 100 * avg.sync / total, avg.compute > 0 and avg.sync / avg.compute or 0))
   local ups = opt.steps / slowest
   print(string.format('summary: model=%s device=%s workers=%d batch/worker=%d updates=%d seconds=%.3f'
      .. ' updates/s=%.2f samples/s=%.1f sync_ms=%.4f compute_ms=%.4f overhead=%.1f%% wall=%.2f loss=%.5f',
      opt.model, onGPU and 'gpu' or 'cpu', N, batch, opt.steps, slowest, ups, ups * batch * N, 1e3 * avg.sync,
      1e3 * avg.compute, 100 * avg.sync / total, wallSeconds, meanLoss(opt.steps)))
end

local ok, err = xpcall(parent, debug.traceback)
close()
if not ok then
   io.stderr:write('data_parallel_train: ' .. tostring(err) .. '\n')
   os.exit(1)
end
