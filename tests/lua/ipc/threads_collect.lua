-- Every Lua state ipc makes collects its garbage: an ipc.map worker answering workqueue messages
-- and a BackgroundTask keep a flat Lua heap (a state whose collector never ran grew by ~400 bytes
-- a message: 40 MB over these 10^5).
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'
local BackgroundTask = require 'ipc.BackgroundTask'

local MESSAGES = 100000

test {
   mapWorkerCollects = function()
      local q = ipc.workqueue('threads_collect')
      local m = ipc.map(1, function(n)
         local ipc = require 'libipc'
         local q = ipc.workqueue('threads_collect')
         local running = collectgarbage('isrunning')
         local early
         for i = 1, n do
            local msg = q:read()
            q:write({ i = msg.i, answer = msg.i * 2, pad = 'x' })
            if i == 1000 then early = collectgarbage('count') end
         end
         return running, early, collectgarbage('count')
      end, MESSAGES)
      for i = 1, MESSAGES do
         q:write({ i = i })
         H.eq(q:read().answer, 2 * i, 'the answer')
      end
      local running, early, late = m:join()
      H.eq(running, true, 'the collector runs in a worker state')
      H.check(late < early + 4096, 'worker heap grew from %d KB to %d KB over %d messages', early, late, MESSAGES)
   end,

   backgroundTaskCollects = function()
      local task = BackgroundTask(function(n)
         local running = collectgarbage('isrunning')
         local early
         for i = 1, n do
            local t = { i = i, s = tostring(i) }
            if i == 1000 then early = collectgarbage('count') end
         end
         return running, early, collectgarbage('count')
      end, MESSAGES * 10)
      local running, early, late = task.getResult()
      H.eq(running, true, 'the collector runs in a BackgroundTask state')
      H.check(late < early + 4096, 'task heap grew from %d KB to %d KB', early, late)
   end,
}
print('ok')
