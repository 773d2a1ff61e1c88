-- cutorch streams (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

function cases.streams()
   H.eq(cutorch.getStream(), 0, 'the default stream first')
   cutorch.reserveStreams(3)
   H.eq(cutorch.getNumStreams(), 3, 'getNumStreams')
   cutorch.reserveStreams(1)
   H.eq(cutorch.getNumStreams(), 3, 'reserving fewer keeps them')
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
   H.raises('unreserved stream', function() cutorch.setStream(4) end, 'cutorch.setStream', 'not reserved')
   H.raises('bad stream', function() cutorch.streamSynchronize(9) end, 'cutorch.streamSynchronize')
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

return cases
