-- torch-ipc's test_BackgroundTaskPool cases (reference C.3), written for our ipc with the regress
-- harness. Tasks sleep up to 10 ms instead of 1 s, and polling counts are bounded below only
-- (the tests never depend on timing).
local test = require 'regress'
local BackgroundTaskPool = require 'ipc.BackgroundTaskPool'

test {
   testSimple = function()
      local pool = BackgroundTaskPool(20)
      for i = 1, 1000 do
         pool.addTask(function(i)
            require('sys').sleep(math.random() * 0.01)
            return i
         end, i)
      end
      for i = 1, 1000 do test.mustBeTrue(type(pool.getResult(i)) == 'number', 'result ' .. i) end
   end,

   testPolling = function()
      local pool = BackgroundTaskPool(13)
      for i = 1, 42 do
         pool.addTask(function(i) require('sys').sleep(0.01); return i end, i)
      end
      local polls = 0
      while not pool.isDone() do
         polls = polls + 1
         require('sys').sleep(0.001)
      end
      test.mustBeTrue(polls > 0, 'polled while tasks ran')
      for i = 1, 42 do test.mustBeTrue(pool.getResult(i) == i, 'result ' .. i) end
   end,

   testError = function()
      local pool = BackgroundTaskPool(13)
      for i = 1, 42 do
         pool.addTask(function(i)
            if i % 8 == 1 then error('task failed') end
            return i
         end, i)
      end
      for i = 1, 42 do
         if i % 8 == 1 then
            test.mustBeFalse(pcall(pool.getResult, i), 'task ' .. i .. ' raises')
         else
            test.mustBeTrue(type(pool.getResult(i)) == 'number', 'task ' .. i)
         end
      end
   end,

   testErrorPolling = function()
      local pool = BackgroundTaskPool(13)
      for i = 1, 42 do
         pool.addTask(function(i)
            require('sys').sleep(0.01)
            if i % 27 == 1 then error('task failed') end
            return i
         end, i)
      end
      local polls = 0
      while not pool.isDone() do
         polls = polls + 1
         require('sys').sleep(0.001)
      end
      test.mustBeTrue(polls > 0, 'polled while tasks ran')
      for i = 1, 42 do
         if i % 27 == 1 then
            test.mustBeFalse(pcall(pool.getResult, i), 'task ' .. i .. ' raises')
         else
            test.mustBeTrue(type(pool.getResult(i)) == 'number', 'task ' .. i)
         end
      end
   end,
}
