-- NCCL on a real GPU: a 1-rank communicator running every collective in place and out of place,
-- every reduction, Float and Double (and Long where cutorch has it); nccl.torch's single-process
-- calls; wrong sizes, types, devices and CPU tensors; destroy/abort; the timeout when a peer never
-- comes; two ranks on one GPU. Prints PASS/FAIL per case and `ok` last, or `SKIP: <why>` without a
-- GPU, cutorch or NCCL. Runs from tests/nccl.rs, or on its own with a prebuilt th:
--    th tests/lua/nccl/gpu.lua
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local nccl = require 'nccl'

local cutorch, why = H.cutorch()
if not cutorch then
   print('SKIP: ' .. why)
   return
end
local available, where = nccl.available()
if not available then
   print('SKIP: ' .. where)
   return
end
require 'parallel'
print(string.format('NCCL %s from %s; %d CUDA device(s)', select(2, nccl.version()), where,
   cutorch.getDeviceCount()))

local OPS = { 'sum', 'prod', 'max', 'min', 'avg' }
-- The device types cutorch has, each with its host type.
local HOST = { CudaTensor = 'FloatTensor', CudaDoubleTensor = 'DoubleTensor', CudaLongTensor = 'LongTensor' }
local TYPES = {}
for _, t in ipairs({ 'CudaTensor', 'CudaDoubleTensor', 'CudaLongTensor' }) do
   if torch[t] then TYPES[#TYPES + 1] = 'torch.' .. t end
end

local function host_type(ty)
   return 'torch.' .. HOST[ty:sub(7)]
end

-- A device tensor of type `ty` on the current device holding `values` (a CPU tensor).
local function dev(ty, values)
   local t = torch[ty:sub(7)]():resize(values:size())
   t:copy(values:type(host_type(ty)))
   return t
end

-- A device tensor's values as a DoubleTensor.
local function host(t)
   local h = torch[HOST[torch.type(t):sub(7)]]():resize(t:size())
   h:copy(t)
   return h:double()
end

local function same(t, want, what)
   local got = host(t)
   H.check(got:nElement() == want:nElement(), '%s: %d elements, expected %d', what, got:nElement(),
      want:nElement())
   if got:nElement() == 0 then return end
   local diff = (got:view(-1) - want:contiguous():view(-1)):abs():max()
   H.check(diff == 0, '%s: differs from the expected values by %s', what, tostring(diff))
end

-- Random values that `ty` holds exactly (integers for Long), as a DoubleTensor.
local function values(ty, n)
   local v = torch.randn(n):mul(100)
   if ty == 'torch.CudaLongTensor' then v:floor() end
   return v:type(host_type(ty)):double()
end

local comm

H.case('a 1-rank communicator', function()
   comm = nccl.communicator(1, nccl.uniqueId(), 0)
   H.eq(comm:rank(), 0, 'rank')
   H.eq(comm:size(), 1, 'size')
   H.eq(comm:device(), cutorch.getDevice(), 'device')
   H.check(tostring(comm):find('rank 0 of 1 on device'), 'tostring: %s', tostring(comm))
   -- A plain 128-byte string works as the id too.
   local other = nccl.communicator(1, nccl.uniqueId():bytes(), 0, 1)
   other:destroy()
end)

for _, ty in ipairs(TYPES) do
   for _, n in ipairs({ 1, 1000, 1048576 + 3 }) do
      H.case(string.format('every collective, %s, %d elements', ty, n), function()
         local v = values(ty, n)
         for _, op in ipairs(OPS) do
            -- With one rank every collective hands the data through unchanged.
            local send, recv = dev(ty, v), dev(ty, torch.zeros(n))
            comm:allReduce(send, recv, op)
            same(recv, v, 'allReduce out of place, ' .. op)
            same(send, v, 'allReduce leaves send alone, ' .. op)
            local t = dev(ty, v)
            comm:allReduce(t, op)
            same(t, v, 'allReduce in place, ' .. op)

            send, recv = dev(ty, v), dev(ty, torch.zeros(n))
            comm:reduce(send, recv, op, 0)
            same(recv, v, 'reduce out of place, ' .. op)
            t = dev(ty, v)
            comm:reduce(t, op)
            same(t, v, 'reduce in place, ' .. op)

            send, recv = dev(ty, v), dev(ty, torch.zeros(n))
            comm:reduceScatter(send, recv, op)
            same(recv, v, 'reduceScatter out of place, ' .. op)
            t = dev(ty, v)
            comm:reduceScatter(t, t:narrow(1, 1, n), op)
            same(t, v, 'reduceScatter in place, ' .. op)
         end
         local send, recv = dev(ty, v), dev(ty, torch.zeros(n))
         comm:bcast(send, recv, 0)
         same(recv, v, 'bcast out of place')
         local t = dev(ty, v)
         comm:bcast(t)
         same(t, v, 'bcast in place')

         send, recv = dev(ty, v), dev(ty, torch.zeros(n))
         comm:allGather(send, recv)
         same(recv, v, 'allGather out of place')
         t = dev(ty, v)
         comm:allGather(t:narrow(1, 1, n), t)
         same(t, v, 'allGather in place')

         -- Ordered with the work around it on the stream: queued fill, collective, queued add.
         local a, b = dev(ty, v), dev(ty, torch.zeros(n))
         a:fill(3)
         comm:allReduce(a, b)
         b:add(1)
         same(b, torch.DoubleTensor(n):fill(4), 'stream order')
      end)
   end
end

H.case('a multi-dimensional tensor and an empty one', function()
   local v = values('torch.CudaTensor', 60):view(3, 4, 5)
   local send, recv = dev('torch.CudaTensor', v), dev('torch.CudaTensor', torch.zeros(60))
   comm:allReduce(send, recv)
   same(recv, v:view(60), 'allReduce of 3x4x5 into 60')
   local e = torch.CudaTensor()
   comm:allReduce(e)
   comm:allGather(e, torch.CudaTensor())
end)

H.case('communicator errors', function()
   local F = 'nccl.Communicator:'
   local x, y = dev('torch.CudaTensor', torch.randn(4)), dev('torch.CudaTensor', torch.randn(5))
   local cpu = torch.FloatTensor(4)
   H.fails('no tensor', F .. 'allReduce: ', function() comm:allReduce() end, 'bad argument #1', 'send')
   for _, name in ipairs({ 'allReduce', 'reduce', 'bcast', 'allGather', 'reduceScatter' }) do
      H.fails('a CPU tensor to ' .. name, F .. name .. ': ', function() comm[name](comm, cpu, x) end,
         'send: expected a torch.Cuda*Tensor, got torch.FloatTensor')
      H.fails('a CPU output to ' .. name, F .. name .. ': ', function() comm[name](comm, x, cpu) end,
         'recv: expected a torch.Cuda*Tensor, got torch.FloatTensor')
   end
   H.fails('sizes', F .. 'allReduce: ', function() comm:allReduce(x, y) end, 'send has 4 elements but recv has 5')
   H.fails('sizes', F .. 'reduce: ', function() comm:reduce(x, y) end, 'same number')
   H.fails('sizes', F .. 'bcast: ', function() comm:bcast(x, y) end, 'same number')
   H.fails('sizes', F .. 'allGather: ', function() comm:allGather(x, y) end, 'recv has 5 elements but must have 4')
   H.fails('sizes', F .. 'reduceScatter: ', function() comm:reduceScatter(x, y) end,
      'send has 4 elements but must have 5')
   H.fails('no output', F .. 'allGather: ', function() comm:allGather(x) end, 'an output tensor is needed')
   if #TYPES > 1 then
      local d = dev(TYPES[2], torch.randn(4))
      H.fails('types', F .. 'allReduce: ', function() comm:allReduce(x, d) end, 'same type')
   end
   local m = dev('torch.CudaTensor', torch.randn(3, 4))
   H.fails('not contiguous', F .. 'allReduce: ', function() comm:allReduce(m:t()) end, 'contiguous')
   H.fails('reduction', F .. 'allReduce: ', function() comm:allReduce(x, 'mean') end, "unknown reduction 'mean'")
   H.fails('root', F .. 'reduce: ', function() comm:reduce(x, 1) end, 'root must be a rank in 0..0, got 1')
   H.fails('root', F .. 'bcast: ', function() comm:bcast(x, -1) end, 'got -1')
   H.fails('op to bcast', F .. 'bcast: ', function() comm:bcast(x, 'sum') end, 'bad argument #2')
   H.fails('root to allReduce', F .. 'allReduce: ', function() comm:allReduce(x, 0) end, 'bad argument #2')
   H.fails('a boolean', F .. 'allGather: ', function() comm:allGather(x, x, true) end, 'bad argument #3')
   local big = dev('torch.CudaTensor', torch.randn(8))
   H.fails('overlap', F .. 'allReduce: ', function() comm:allReduce(big:narrow(1, 1, 4), big:narrow(1, 3, 4)) end,
      'overlap')
   if cutorch.getDeviceCount() > 1 then
      cutorch.setDevice(2)
      local other = torch.CudaTensor(4):fill(1)
      cutorch.setDevice(1)
      H.fails('device', F .. 'allReduce: ', function() comm:allReduce(other) end, 'on device 2', 'on device 1')
   end
end)

H.case('destroy and abort', function()
   local c = nccl.communicator(1, nccl.uniqueId(), 0)
   local t = dev('torch.CudaTensor', torch.randn(4))
   c:allReduce(t)
   c:destroy()
   c:destroy()
   H.check(tostring(c):find('destroyed'), 'tostring: %s', tostring(c))
   H.fails('use after destroy', 'nccl.Communicator:allReduce: ', function() c:allReduce(t) end, 'destroyed')
   local a = nccl.communicator(1, nccl.uniqueId(), 0)
   a:abort()
   H.fails('use after abort', 'nccl.Communicator:bcast: ', function() a:bcast(t) end, 'destroyed')
   -- Left to the garbage collector.
   nccl.communicator(1, nccl.uniqueId(), 0):allReduce(t)
   collectgarbage()
   collectgarbage()
end)

H.case('single-process API on one device', function()
   local v = values('torch.CudaTensor', 100)
   local t = dev('torch.CudaTensor', v)
   nccl.allReduce({ t })
   same(t, v, 'allReduce in place')
   local o = dev('torch.CudaTensor', torch.zeros(100))
   nccl.allReduce({ t }, { o })
   same(o, v, 'allReduce out of place')
   o:zero()
   nccl.reduce({ t }, { o }, false, 1)
   same(o, v, 'reduce')
   nccl.bcast({ t }, true, 1)
   same(t, v, 'bcast, async')
   o:zero()
   nccl.allGather({ t }, { o })
   same(o, v, 'allGather')
   o:zero()
   nccl.reduceScatter({ t }, { o }, true)
   same(o, v, 'reduceScatter, async')
   local F = 'nccl.allReduce: '
   H.fails('sizes', F, function() nccl.allReduce({ t }, { torch.CudaTensor(5) }) end, 'same number')
   H.fails('outputs count', F, function() nccl.allReduce({ t }, { o, o }) end, '2 outputs for 1 inputs')
   H.fails('same device', F, function() nccl.allReduce({ t, o }) end, 'both on device')
   H.fails('no outputs', 'nccl.allGather: ', function() nccl.allGather({ t }) end, 'outputs')
   H.fails('root', 'nccl.reduce: ', function() nccl.reduce({ t }, nil, false, 2) end, 'root must be an index')
end)

if cutorch.getDeviceCount() > 1 then
   H.case('single-process API across every device', function()
      local n = cutorch.getDeviceCount()
      local ins, outs, gathered, scattered = {}, {}, {}, {}
      for d = 1, n do
         cutorch.setDevice(d)
         ins[d] = torch.CudaTensor(6):fill(d)
         outs[d] = torch.CudaTensor(6):zero()
         gathered[d] = torch.CudaTensor(6 * n):zero()
      end
      cutorch.setDevice(1)
      nccl.allReduce(ins, outs)
      for d = 1, n do same(outs[d], torch.DoubleTensor(6):fill(n * (n + 1) / 2), 'allReduce on device ' .. d) end
      nccl.allGather(ins, gathered)
      for d = 1, n do
         for r = 1, n do
            same(gathered[d]:narrow(1, (r - 1) * 6 + 1, 6), torch.DoubleTensor(6):fill(r), 'allGather piece ' .. r)
         end
      end
      for d = 1, n do
         cutorch.setDevice(d)
         scattered[d] = torch.CudaTensor(1):zero()
      end
      cutorch.setDevice(1)
      local big = {}
      for d = 1, n do
         cutorch.setDevice(d)
         big[d] = torch.CudaTensor(n):fill(d)
      end
      cutorch.setDevice(1)
      nccl.reduceScatter(big, scattered)
      for d = 1, n do same(scattered[d], torch.DoubleTensor(1):fill(n * (n + 1) / 2), 'reduceScatter ' .. d) end
      nccl.bcast(ins, false, 2)
      for d = 1, n do same(ins[d], torch.DoubleTensor(6):fill(2), 'bcast from 2 on ' .. d) end
   end)
end

H.case('a peer that never comes: the timeout', function()
   nccl.timeout = 3
   local ok, err = pcall(nccl.communicator, 2, nccl.uniqueId(), 0)
   nccl.timeout = 300
   H.check(not ok, 'a 2-rank communicator with one rank cannot be made')
   H.check(tostring(err):find('nccl.communicator:', 1, true) and tostring(err):find('after 3 s (nccl.timeout)', 1, true),
      'the error names the timeout: %s', tostring(err))
end)

H.case('two ranks on one GPU', function()
   -- NCCL before 2.30 refuses two ranks on one GPU; 2.30 and later accept them with
   -- NCCL_MULTI_RANK_GPU_ENABLE=1.
   local code = nccl.version()
   local allowed = code >= 23000 and os.getenv('NCCL_MULTI_RANK_GPU_ENABLE') == '1'
   local id = nccl.uniqueId()
   local results
   local ok, err = pcall(function()
      local c = parallel.fork()
      c:exec(function()
         require 'cutorch'
         local nccl = require 'nccl'
         nccl.timeout = 60
         local id = parallel.parent:receive()
         local ok, comm = pcall(nccl.communicator, 2, id, 1, 1)
         if not ok then
            parallel.parent:send({ ok = false, err = comm })
            return
         end
         local t = torch.CudaTensor(4):fill(2)
         comm:allReduce(t)
         parallel.parent:send({ ok = true, value = torch.FloatTensor(4):copy(t)[1] })
         comm:destroy()
      end)
      c:send(id)
      nccl.timeout = 60
      local mine = { pcall(nccl.communicator, 2, id, 0, 1) }
      nccl.timeout = 300
      if mine[1] then
         local t = torch.CudaTensor(4):fill(1)
         mine[2]:allReduce(t)
         mine.value = torch.FloatTensor(4):copy(t)[1]
      end
      results = { parent = mine, child = c:receive() }
      if mine[1] then mine[2]:destroy() end
   end)
   parallel.close()
   if not ok then error(err, 0) end
   if allowed then
      H.check(results.parent[1], 'rank 0: %s', tostring(results.parent[2]))
      H.check(results.child.ok, 'rank 1: %s', tostring(results.child.err))
      H.eq(results.parent.value, 3, 'the sum on rank 0')
      H.eq(results.child.value, 3, 'the sum on rank 1')
   else
      for _, e in ipairs({ results.parent[1] == false and results.parent[2] or nil, results.child.err }) do
         H.check(e and e:find('NCCL >= 2.30 with NCCL_MULTI_RANK_GPU_ENABLE=1', 1, true),
            'an error that explains: %s', tostring(e))
      end
      print('  (as expected) ' .. tostring(results.parent[2]))
   end
end)

if comm then comm:destroy() end
H.finish()
