-- ipc.BackgroundTask and ipc.BackgroundTaskPool.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'
local BackgroundTask = require 'ipc.BackgroundTask'
local BackgroundTaskPool = require 'ipc.BackgroundTaskPool'

test {
   taskResults = function()
      local task = BackgroundTask(function(a, b) return 'done!', a + b, true, nil end, 40, 2)
      H.same_list(H.pack(task.getResult()), H.pack('done!', 42, true, nil), 'results')
      H.eq(task.isDone(), true, 'done')
      H.eq(select('#', task.getResult()), 0, 'a result is handed out once')
   end,

   taskWithoutResults = function()
      local task = BackgroundTask(function() end)
      H.eq(select('#', task.getResult()), 0, 'no results')
   end,

   taskNotDoneUntilItFinishes = function()
      local c = ipc.channel()
      local task = BackgroundTask(function(c) local _, v = c:read(); return v * 2 end, c)
      H.eq(task.isDone(), false, 'waiting for the channel')
      c:write(21)
      H.eventually('task done', function() return task.isDone() end)
      H.eq(task.getResult(), 42, 'result')
   end,

   taskError = function()
      local task = BackgroundTask(function() error('task broke') end)
      H.raises('getResult', function() task.getResult() end, 'task broke')
   end,

   taskArguments = function()
      H.raises('not a function', function() BackgroundTask('x') end, 'BackgroundTask', 'a function expected')
      local u = 1
      H.raises('a closure', function() BackgroundTask(function() return u end) end, 'Attempt to serialize closure')
      local t = torch.FloatTensor(3):zero()
      BackgroundTask(function(t) t:fill(2) end, t).getResult()
      H.eq(t:sum(), 6, 'a tensor argument is shared')
   end,

   poolManyTasks = function()
      local pool = BackgroundTaskPool(8)
      local ids = {}
      for i = 1, 300 do
         ids[i] = pool.addTask(function(i) return i * i, 'x' .. i end, i)
         H.eq(ids[i], i, 'task id')
      end
      for i = 300, 1, -1 do
         H.same_list(H.pack(pool.getResult(ids[i])), H.pack(i * i, 'x' .. i), 'task ' .. i)
      end
      H.eq(pool.isDone(), true, 'all done')
      H.eq(pool.hasTask(), false, 'nothing outstanding')
      pool.close()
      H.raises('add to a closed pool', function() pool.addTask(function() end) end, 'the pool is closed')
   end,

   poolErrors = function()
      local pool = BackgroundTaskPool(4, { closeOnLastTask = true })
      for i = 1, 40 do
         pool.addTask(function(i)
            if i % 8 == 1 then error('task ' .. i .. ' failed') end
            return i
         end, i)
      end
      for i = 1, 40 do
         if i % 8 == 1 then
            H.raises('task ' .. i, function() pool.getResult(i) end, 'task ' .. i .. ' failed')
         else
            H.eq(pool.getResult(i), i, 'task ' .. i)
         end
      end
   end,

   poolIsDoneForOneTask = function()
      local pool = BackgroundTaskPool(2)
      local c = ipc.channel()
      local slow = pool.addTask(function(c) local _, v = c:read(); return v end, c)
      local fast = pool.addTask(function() return 'fast' end)
      H.eventually('the fast task', function() return pool.isDone(fast) end)
      H.eq(pool.isDone(slow), false, 'the slow task waits')
      H.eq(pool.isDone(), false, 'not all done')
      H.eq(pool.hasTask(), true, 'a task outstanding')
      H.eq(pool.getResult(fast), 'fast', 'fast result')
      c:write('slow')
      H.eq(pool.getResult(slow), 'slow', 'slow result')
      pool.close()
   end,

   poolResultThatCannotCross = function()
      local pool = BackgroundTaskPool(1)
      local id = pool.addTask(function() local u = 1; return function() return u end end)
      H.raises('closure result', function() pool.getResult(id) end, 'cannot return its result', 'Attempt to serialize closure')
      H.eq(pool.addTask(function() return 'still working' end), 2, 'next id')
      H.eq(pool.getResult(2), 'still working', 'the worker survived')
      pool.close()
   end,

   poolArguments = function()
      H.raises('size', function() BackgroundTaskPool(0) end, 'BackgroundTaskPool', 'at least 1')
      H.raises('size type', function() BackgroundTaskPool('x') end, 'BackgroundTaskPool')
      H.raises('options', function() BackgroundTaskPool(1, 'x') end, 'options must be a table')
      local pool = BackgroundTaskPool(1)
      H.raises('task', function() pool.addTask(5) end, 'a function expected')
      pool.close()
   end,
}
print('ok')
