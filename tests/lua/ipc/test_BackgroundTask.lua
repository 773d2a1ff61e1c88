-- torch-ipc's test_BackgroundTask cases (reference C.3), written for our ipc with the regress
-- harness. The polling cases count polls while the task waits; upstream bounded the counts by
-- wall time, here the task waits for the test (a channel), so only "not done, then done" is fixed.
local test = require 'regress'
local ipc = require 'libipc'
local BackgroundTask = require 'ipc.BackgroundTask'

test {
   testSimple = function()
      local task = BackgroundTask(function() return 'done!', 42, true end)
      local a, b, c = task.getResult()
      test.mustBeTrue(a == 'done!' and b == 42 and c == true, 'results')
   end,

   testPolling = function()
      local go = ipc.channel()
      local task = BackgroundTask(function(go) go:read(); return 'polled' end, go)
      local polls = 0
      while not task.isDone() do
         polls = polls + 1
         if polls == 10 then go:write(true) end
         sys.sleep(0.001)
      end
      test.mustBeTrue(polls >= 10, 'not done before it was let go: ' .. polls)
      test.mustBeTrue(task.getResult() == 'polled', 'result')
   end,

   testNoReturns = function()
      local task = BackgroundTask(function() end)
      test.mustBeTrue(task.getResult() == nil, 'nil')
   end,

   testError = function()
      local task = BackgroundTask(function() error('oops') end)
      test.mustBeFalse(pcall(task.getResult), 'raises')
   end,

   testErrorPolling = function()
      local go = ipc.channel()
      local task = BackgroundTask(function(go) go:read(); error('oops') end, go)
      test.mustBeFalse(task.isDone(), 'not done at first')
      go:write(true)
      while not task.isDone() do sys.sleep(0.001) end
      test.mustBeFalse(pcall(task.getResult), 'raises')
   end,
}
