-- Devices, properties, memory, seeds (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

function cases.devices()
   local n = cutorch.getDeviceCount()
   H.check(n >= 1, 'device count %d', n)
   H.eq(cutorch.getDevice(), 1, 'the first device is current')
   cutorch.setDevice(n)
   H.eq(cutorch.getDevice(), n, 'setDevice')
   cutorch.setDevice(1)
   H.raises('setDevice(0)', function() cutorch.setDevice(0) end, 'cutorch.setDevice', 'does not exist')
   H.raises('setDevice(n+1)', function() cutorch.setDevice(n + 1) end, 'cutorch.setDevice', 'does not exist')
   H.eq(cutorch.withDevice(n, function() return cutorch.getDevice() end), n, 'withDevice')
   H.eq(cutorch.getDevice(), 1, 'withDevice restores')
end

-- cutorch.mps() answers (nil, or a table whose `active` is a boolean) without raising, whatever the
-- machine's MPS set-up; tests/mps.rs checks its answers against fake daemons.
function cases.mpsProbe()
   H.eq(type(cutorch.mps), 'function', 'cutorch.mps')
   local m = cutorch.mps()
   if m ~= nil then
      H.eq(type(m.pipeDirectory), 'string', 'pipeDirectory')
      H.eq(type(m.active), 'boolean', 'active')
      H.check(m.active or type(m.reason) == 'string', 'a reason when not active')
   end
end

function cases.properties()
   local p = cutorch.getDeviceProperties(1)
   H.eq(type(p.name), 'string', 'name')
   H.check(p.major >= 3, 'compute capability %d.%d', p.major, p.minor)
   H.check(p.totalGlobalMem > 0 and p.freeGlobalMem <= p.totalGlobalMem, 'memory sizes')
   H.check(p.multiProcessorCount > 0 and p.warpSize == 32, 'SMs and warp size')
   local free, total = cutorch.getMemoryUsage(1)
   H.check(free > 0 and free <= total, 'getMemoryUsage %s %s', free, total)
   local free2 = cutorch.getMemoryUsage()
   H.check(free2 > 0, 'getMemoryUsage of the current device')
   H.raises('getDeviceProperties()', function() cutorch.getDeviceProperties() end, 'getDeviceProperties')
end

function cases.allocationShowsInMemoryUsage()
   collectgarbage()
   local before = cutorch.getMemoryUsage(1)
   local t = torch.CudaTensor(64, 1024, 1024) -- 256 MiB
   cutorch.synchronize()
   local during = cutorch.getMemoryUsage(1)
   H.check(before - during >= 200 * 2 ^ 20, 'free memory fell by %d bytes only', before - during)
   t = nil
   collectgarbage()
   collectgarbage()
   local after = cutorch.getMemoryUsage(1)
   H.check(after - during >= 200 * 2 ^ 20, 'memory was not given back (%d)', after - during)
end

local ffi = require 'ffi'
local function address(t) return tonumber(ffi.cast('intptr_t', t:data())) end
local caching = os.getenv('THC_CACHING_ALLOCATOR') ~= '0'

-- Freed memory is kept for the next allocation of its size class on its stream (cutorch's
-- caching allocator), zeroed again when reused, and counted as free memory.
function cases.cacheReusesFreedMemory()
   collectgarbage()
   collectgarbage()
   local a = torch.CudaTensor(1000):fill(7)
   local where = address(a)
   a = nil
   collectgarbage()
   collectgarbage()
   local b = torch.CudaTensor(1010) -- 4040 bytes: the class of 4000 (4 KiB)
   if caching then H.eq(address(b), where, 'the freed block is reused') end
   H.eq(b:min(), 0, 'a reused block reads as zeros')
   H.eq(b:max(), 0, 'a reused block reads as zeros')
   if os.getenv('LUATORCH_CUDA_MOCK') == '1' then
      -- The mock counts the driver's allocations: after the first round, a loop of temporaries
      -- makes none (without the cache, every temporary is one).
      pcall(ffi.cdef, 'int mockAllocations(void);')
      local driver = ffi.load('libcuda.so.1')
      local x = torch.CudaTensor(64, 64):uniform()
      local function round(i)
         local y = torch.add(x, i):t():contiguous()
         return y:sum() + y:max(1):sum()
      end
      round(0)
      collectgarbage()
      local before = driver.mockAllocations()
      for i = 1, 20 do
         round(i)
         collectgarbage()
      end
      local made = driver.mockAllocations() - before
      if caching then
         H.eq(made, 0, 'allocations made by 20 rounds of temporaries')
      else
         H.check(made >= 20, 'without the cache every temporary is allocated (%d)', made)
      end
   end
end

-- An allocation that does not fit while the cache holds memory frees the cache and succeeds.
function cases.cacheGivesWayWhenTheDeviceIsFull()
   cutorch.emptyCache()
   collectgarbage()
   local free = cutorch.getMemoryUsage(1)
   local big = torch.CudaTensor(math.floor(free * 0.6 / 4)):fill(1)
   big = nil
   collectgarbage()
   collectgarbage()
   local after = cutorch.getMemoryUsage(1)
   H.check(after >= free * 0.95, 'cached memory counts as free (%d of %d)', after, free)
   -- 70% more: the 60% block must be freed first.
   local n = math.floor(free * 0.7 / 4)
   local other = torch.CudaTensor(n)
   H.eq(other[1] + other[n], 0, 'the new tensor is zeroed')
   other = nil
   collectgarbage()
   cutorch.emptyCache(1)
   cutorch.emptyCache()
   H.raises('emptyCache(99)', function() cutorch.emptyCache(99) end, 'cutorch.emptyCache', 'does not exist')
   H.eq(cutorch.getDevice(), 1, 'emptyCache leaves the current device')
end

-- With two devices or more: tensors live where they were made, copies cross devices, and an
-- operation on tensors of two devices is refused.
function cases.severalDevices()
   if cutorch.getDeviceCount() < 2 then return end
   local x = torch.FloatTensor(4, 5):uniform()
   local a = x:cuda()
   cutorch.setDevice(2)
   local b = torch.CudaTensor(5, 4)
   H.eq(b:getDevice(), 2, 'made on the current device')
   H.eq(a:getDevice(), 1, 'stays on its device')
   local waits = 0
   if os.getenv('LUATORCH_CUDA_MOCK') == '1' then
      local ffi = require 'ffi'
      pcall(ffi.cdef, 'int mockStreamWaits(void);')
      local driver = ffi.load('libcuda.so.1')
      local before = driver.mockStreamWaits()
      b:copy(a:t())
      waits = driver.mockStreamWaits() - before
      H.eq(waits, 2, 'a copy across devices waits for the source and makes the source wait for it')
   else
      b:copy(a:t())
   end
   H.close(b, x:t():contiguous(), 0, 'copy across devices')
   local c = a:clone()
   H.eq(c:getDevice(), 2, 'clone goes to the current device (cutorch\'s way to move a tensor)')
   H.close(c, x, 0, 'clone across devices')
   c = cutorch.withDevice(1, function() return c:clone() end)
   H.eq(c:getDevice(), 1, 'and back')
   H.close(torch.add(a, 1), x + 1, 1e-6, 'work on device 1 while device 2 is current')
   H.raises('two devices', function() torch.add(a, b:t()) end, 'add', 'different devices')
   cutorch.setDevice(1)
   H.close(b:float():cuda(), x:t():contiguous(), 0, 'device 2 back to device 1')
end

-- Peer access between devices: on where the hardware allows it, switchable; kernels reach
-- tensors of other devices only when allowed (cutorch.setKernelPeerToPeerAccess).
function cases.peerAccess()
   H.eq(cutorch.getKernelPeerToPeerAccess(), false, 'kernel peer access is off at first')
   H.eq(cutorch.getPeerToPeerAccess(1, 1), true, 'a device reaches its own memory')
   H.raises('set(1, 1, false)', function() cutorch.setPeerToPeerAccess(1, 1, false) end,
      'cutorch.setPeerToPeerAccess', 'its own memory')
   H.raises('get(1)', function() cutorch.getPeerToPeerAccess(1) end, 'cutorch.getPeerToPeerAccess',
      'device number expected')
   H.raises('set(1, 1, 1)', function() cutorch.setPeerToPeerAccess(1, 1, 1) end, 'cutorch.setPeerToPeerAccess',
      'boolean expected')
   if cutorch.getDeviceCount() < 2 then return end
   local supported = cutorch.getPeerToPeerAccess(1, 2)
   if not supported then
      H.raises('set(1, 2, true)', function() cutorch.setPeerToPeerAccess(1, 2, true) end,
         'cutorch.setPeerToPeerAccess', 'cannot access')
      return
   end
   cutorch.setPeerToPeerAccess(1, 2, false)
   H.eq(cutorch.getPeerToPeerAccess(1, 2), false, 'switched off')
   H.eq(cutorch.getPeerToPeerAccess(2, 1), true, 'the other direction is its own')
   cutorch.setPeerToPeerAccess(1, 2, true)
   H.eq(cutorch.getPeerToPeerAccess(1, 2), true, 'switched on')

   local x, y = torch.FloatTensor(30):uniform(), torch.FloatTensor(30):uniform()
   local a = x:cuda()
   local b = cutorch.withDevice(2, function() return y:cuda() end)
   H.raises('kernel across devices', function() torch.add(a, b) end, 'add', 'setKernelPeerToPeerAccess')
   cutorch.setKernelPeerToPeerAccess(true)
   local ok, err = pcall(function()
      H.eq(cutorch.getKernelPeerToPeerAccess(), true, 'kernel peer access on')
      local c = torch.add(a, b)
      H.eq(c:getDevice(), 1, 'worked on by the current device')
      H.close(c, x + y, 1e-6, 'a + b across devices')
      cutorch.setDevice(2)
      local d = torch.cmul(a, b)
      H.eq(d:getDevice(), 2, 'worked on by device 2 when current')
      H.close(d, torch.cmul(x, y), 1e-6, 'a * b on device 2')
      cutorch.setPeerToPeerAccess(2, 1, false)
      H.raises('no peer access', function() torch.add(a, b) end, 'add', 'no peer access')
      cutorch.setPeerToPeerAccess(2, 1, true)
   end)
   cutorch.setDevice(1)
   cutorch.setKernelPeerToPeerAccess(false)
   assert(ok, err)
end

-- The device generators' states, saved and restored per device.
function cases.rngStates()
   cutorch.manualSeed(5)
   local state = cutorch.getRNGState()
   H.eq(torch.typename(state), 'torch.ByteTensor', 'a ByteTensor')
   local a = torch.CudaTensor(20):uniform()
   cutorch.setRNGState(state)
   H.close(torch.CudaTensor(20):uniform(), a:float(), 0, 'the same draws after setRNGState')
   H.raises('short state', function() cutorch.setRNGState(torch.ByteTensor(3)) end, 'cutorch.setRNGState',
      'wrong size')
   H.raises('not a state', function() cutorch.setRNGState(torch.FloatTensor(3)) end, 'cutorch.setRNGState',
      'torch.ByteTensor expected')
   if cutorch.getDeviceCount() < 2 then return end
   cutorch.manualSeed(11, 2)
   H.eq(cutorch.initialSeed(2), 11, 'manualSeed(seed, device)')
   H.eq(cutorch.initialSeed(), 5, 'the current device keeps its seed')
   local other = cutorch.getRNGState(2)
   cutorch.setRNGState(other, 1)
   H.eq(cutorch.initialSeed(1), 11, 'a state moves between devices')
   local s = cutorch.seed(2)
   H.eq(cutorch.initialSeed(2), s, 'seed(device)')
   H.eq(cutorch.initialSeed(1), 11, 'seed(device) leaves the other devices')
end

function cases.synchronize()
   cutorch.synchronize()
   cutorch.synchronizeAll()
end

function cases.seeds()
   cutorch.manualSeed(123)
   H.eq(cutorch.initialSeed(), 123, 'initialSeed')
   local a = torch.CudaTensor(100):uniform()
   cutorch.manualSeed(123)
   local b = torch.CudaTensor(100):uniform()
   H.close(a, b:float(), 0, 'same seed, same draws')
   H.check(a:min() >= 0 and a:max() <= 1, 'uniform in [0, 1]')
   local n = torch.CudaDoubleTensor(10000):normal(2, 3)
   H.check(math.abs(n:mean() - 2) < 0.2, 'normal mean %g', n:mean())
   local s = cutorch.seed()
   H.eq(cutorch.initialSeed(), s, 'seed')
   cutorch.manualSeedAll(7)
   H.eq(cutorch.initialSeed(), 7, 'manualSeedAll')
   local bern = torch.CudaTensor(1000):bernoulli(0.3)
   H.check(bern:sum() > 200 and bern:sum() < 400, 'bernoulli')
end

return cases
