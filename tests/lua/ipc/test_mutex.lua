-- torch-ipc's test_mutex case (reference C.3), written for our ipc with the regress harness.
local test = require 'regress'
local ipc = require 'libipc'

test {
   testLockingAndBarrier = function()
      local m, b1, b2 = ipc.mutex(), ipc.mutex(), ipc.mutex()
      local shared = torch.FloatTensor(10000):zero()
      local workers = ipc.map(3, function(m, b1, b2, shared, mapid)
         local test = require 'regress'
         test.mustBeTrue(shared:sum() == 0, 'zero before the first barrier')
         b1:barrier(4)
         b2:barrier(4)
         test.mustBeTrue(shared[1] == 1000, 'the main thread write is seen')
         b1:barrier(4) -- every thread has looked before any fills (the first barrier, reused)
         m:lock()
         shared:fill(mapid)
         m:unlock()
      end, m, b1, b2, shared)
      b1:barrier(4)
      shared[1] = 1000
      b2:barrier(4)
      b1:barrier(4)
      workers:join()
      local first = shared[1]
      test.mustBeTrue(first >= 1 and first <= 3, 'filled by a thread')
      test.mustBeTrue(shared:eq(first):sum() == shared:nElement(), 'all elements equal')
   end,
}
