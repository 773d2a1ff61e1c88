-- cutorch streams (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

function cases.streams()
   H.eq(cutorch.getStream(), 0, 'the default stream first')
   cutorch.reserveStreams(3)
   local n = cutorch.getNumStreams()
   H.check(n >= 3, 'getNumStreams %d', n)
   cutorch.reserveStreams(1)
   H.eq(cutorch.getNumStreams(), n, 'reserving fewer keeps them')
   local x = torch.FloatTensor(512, 512):uniform()
   local results = {}
   for s = 0, 3 do
      cutorch.setStream(s)
      H.eq(cutorch.getStream(), s, 'setStream')
      local c = x:cuda()
      local r = torch.mm(c, c):add(1):sum(2)
      cutorch.streamSynchronize(s)
      results[s] = r:float()
   end
   for s = 1, 3 do H.close(results[s]:cuda(), results[0], 1e-4, 'stream ' .. s) end
   cutorch.setDefaultStream()
   H.eq(cutorch.getStream(), 0, 'setDefaultStream')
   H.raises('unreserved stream', function() cutorch.setStream(n + 1) end, 'cutorch.setStream', 'not reserved')
   H.raises('bad stream', function() cutorch.streamSynchronize(n + 1) end, 'cutorch.streamSynchronize')
   cutorch.synchronize()
end

function cases.threadsHaveTheirOwnCurrentStream()
   cutorch.reserveStreams(1)
   cutorch.setStream(1)
   local ipc = require 'libipc'
   local before, sum = ipc.map(1, function()
      require 'cutorch'
      local before = cutorch.getStream()
      local t = torch.CudaTensor(10):fill(2)
      return before, t:sum()
   end):join()
   H.eq(before, 0, 'a new thread starts on the default stream')
   H.eq(sum, 20, 'device work in a thread')
   H.eq(cutorch.getStream(), 1, 'this thread keeps its stream')
   cutorch.setStream(0)
end

local ffi = require 'ffi'
pcall(ffi.cdef, [[
int cuStreamGetFlags(void *stream, unsigned *flags);
int mockStreamWaits(void);
]])
local driver = ffi.load('libcuda.so.1')
local mock = os.getenv('LUATORCH_CUDA_MOCK') == '1'

-- How many times the mock was asked to make a stream wait for an event during f (nil on a GPU).
local function waitsDuring(f)
   if not mock then f() return nil end
   local before = driver.mockStreamWaits()
   f()
   return driver.mockStreamWaits() - before
end

local function flagsOfCurrentStream()
   local flags = ffi.new('unsigned[1]')
   assert(driver.cuStreamGetFlags(ffi.cast('void*', cutorch._currentStreamAddress()), flags) == 0)
   return flags[0]
end

-- Reserved streams are blocking (they and the default stream wait for each other), as cutorch's
-- were; reserveStreams(n, true) makes the new ones non-blocking.
function cases.reservedStreamsBlockUnlessAsked()
   cutorch.reserveStreams(3)
   cutorch.setStream(1)
   H.eq(flagsOfCurrentStream(), 0, 'stream 1 is a blocking stream (CU_STREAM_DEFAULT)')
   cutorch.reserveStreams(4, true)
   cutorch.setStream(4)
   H.eq(flagsOfCurrentStream(), 1, 'stream 4 is non-blocking (CU_STREAM_NON_BLOCKING)')
   cutorch.setStream(0)
   H.raises('reserveStreams(1, 2)', function() cutorch.reserveStreams(1, 2) end, 'cutorch.reserveStreams',
      'boolean expected')
   H.raises('streamSynchronize(-1)', function() cutorch.streamSynchronize(-1) end, 'cutorch.streamSynchronize',
      'invalid stream')
end

-- streamWaitFor, streamBarrier and their multi-device forms queue waits, and the results of
-- work ordered by them are right.
function cases.streamsWaitForEachOther()
   cutorch.reserveStreams(3)
   local x = torch.FloatTensor(256, 256):uniform()
   cutorch.setStream(1)
   local c = x:cuda()
   local r = torch.mm(c, c)
   cutorch.setStream(2)
   H.eq(waitsDuring(function() cutorch.streamWaitFor(2, { 1 }) end), mock and 1 or nil, 'streamWaitFor(2, {1})')
   local s = r:sum(2)
   cutorch.setStream(0)
   H.eq(waitsDuring(function() cutorch.streamWaitFor(0, { 1, 2, 0 }) end), mock and 2 or nil,
      'a stream does not wait for itself')
   H.close(s, torch.mm(x, x):sum(2), 1e-3, 'work ordered by streamWaitFor')
   H.eq(waitsDuring(function() cutorch.streamBarrier({ 0, 1, 2, 3 }) end), mock and 12 or nil, 'streamBarrier')
   H.eq(waitsDuring(function() cutorch.streamWaitForMultiDevice(1, 3, { [1] = { 1, 2 } }) end), mock and 2 or nil,
      'streamWaitForMultiDevice on one device')
   if cutorch.getDeviceCount() >= 2 then
      H.eq(waitsDuring(function() cutorch.streamWaitForMultiDevice(2, 0, { [1] = { 0, 1 }, [2] = { 1 } }) end),
         mock and 3 or nil, 'streamWaitForMultiDevice across devices')
      H.eq(waitsDuring(function() cutorch.streamBarrierMultiDevice({ [1] = { 0 }, [2] = { 0, 1 } }) end),
         mock and 6 or nil, 'streamBarrierMultiDevice')
      H.eq(cutorch.getDevice(), 1, 'the current device is kept')
   end
   H.raises('no list', function() cutorch.streamWaitFor(1) end, 'cutorch.streamWaitFor',
      'table of stream numbers expected')
   H.raises('bad stream', function() cutorch.streamWaitFor(1, { -1 }) end, 'cutorch.streamWaitFor',
      'stream numbers expected')
   H.raises('unreserved', function() cutorch.streamBarrier({ 0, 99 }) end, 'cutorch.streamBarrier', 'not reserved')
   H.raises('bad device', function() cutorch.streamBarrierMultiDevice({ [99] = { 0 } }) end,
      'cutorch.streamBarrierMultiDevice', 'does not exist')
   H.raises('bad map', function() cutorch.streamWaitForMultiDevice(1, 0, { 0, 1 }) end,
      'cutorch.streamWaitForMultiDevice', 'stream numbers expected')
   cutorch.synchronize()
end

return cases
