-- ipc.mutex: recursive lock and unlock, mutual exclusion across threads, a reusable barrier, and
-- a holder that ends without unlocking.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

test {
   recursiveLock = function()
      local m = ipc.mutex()
      m:lock()
      m:lock()
      m:unlock()
      -- Still held once: another thread cannot take it until the second unlock.
      local c = ipc.channel()
      local w = ipc.map(1, function(m, c)
         m:lock()
         c:write('locked')
         m:unlock()
         return 'done'
      end, m, c)
      H.same_list(H.pack(c:read(true)), H.pack(0), 'the worker is waiting for the lock')
      m:unlock()
      H.same_list(H.pack(c:read()), H.pack(0, 'locked'), 'the worker got the lock')
      H.eq(w:join(), 'done', 'worker')
   end,

   unlockWithoutLock = function()
      local m = ipc.mutex()
      H.raises('unlock of a free mutex', function() m:unlock() end, 'ipc.mutex:unlock', 'not locked by this thread')
      m:lock()
      local r = H.pack(ipc.map(1, function(m) return pcall(m.unlock, m) end, m):join())
      H.eq(r[1], false, 'unlock from another thread')
      assert(tostring(r[2]):find('not locked by this thread', 1, true), r[2])
      m:unlock()
   end,

   mutualExclusionOnASharedTensor = function()
      local m = ipc.mutex()
      local counter = torch.LongTensor(2):zero()
      ipc.map(4, function(m, counter)
         for _ = 1, 2000 do
            m:lock()
            -- A read-modify-write in two steps: without the lock, updates would be lost.
            local v = counter[1]
            counter[2] = counter[2] + 1
            counter[1] = v + 1
            m:unlock()
         end
      end, m, counter):join()
      H.eq(counter[1], 8000, 'every increment kept')
      H.eq(counter[2], 8000, 'second counter')
   end,

   barrierIsReusable = function()
      local b = ipc.mutex()
      local seen = torch.LongTensor(3, 5):zero()
      local shared = torch.LongTensor(1):zero()
      local w = ipc.map(3, function(b, seen, shared, id)
         for round = 1, 5 do
            b:barrier(4)
            -- The main thread wrote this round's value before the barrier.
            seen[id][round] = shared[1]
            b:barrier(4)
         end
      end, b, seen, shared)
      for round = 1, 5 do
         shared[1] = round * 10
         b:barrier(4)
         b:barrier(4)
      end
      w:join()
      for id = 1, 3 do
         for round = 1, 5 do H.eq(seen[id][round], round * 10, 'thread ' .. id .. ' round ' .. round) end
      end
      b:barrier(1) -- a barrier of one opens at once
   end,

   holderEndedWithoutUnlocking = function()
      local m = ipc.mutex()
      ipc.map(1, function(m) m:lock() end, m):join()
      H.raises('lock held by an ended thread', function() m:lock() end, 'ipc.mutex:lock', 'ended without unlocking')
   end,

   mutexesInTablesAndQueues = function()
      local m = ipc.mutex()
      local q = ipc.workqueue()
      local w = ipc.map(1, function(q)
         local t = q:read()
         t.m:lock()
         t.m:unlock()
         q:write(t.m)
      end, q)
      q:write({ m = m })
      local back = q:read()
      back:lock()
      m:lock() -- the same mutex, recursive
      m:unlock()
      back:unlock()
      w:join()
   end,

   aBarrierNobodyElseCanReachRaises = function()
      -- The worker that should meet us at the barrier fails first: the barrier cannot open.
      local m = ipc.mutex()
      local w = ipc.map(1, function(m) error('worker gave up') end, m)
      H.raises('barrier after the other thread ended', function() m:barrier(2) end, 'ipc.mutex:barrier',
         'can never open')
      H.raises('the worker error', function() w:join() end, 'worker gave up')
      -- The mutex still works, and so does a barrier of one.
      m:barrier(1)
      m:lock()
      m:unlock()
   end,

   badArguments = function()
      local m = ipc.mutex()
      H.raises('barrier without a count', function() m:barrier() end, 'ipc.mutex:barrier', 'number expected')
      H.raises('barrier of a string', function() m:barrier('four') end, 'ipc.mutex:barrier', 'number expected')
      H.raises('barrier of zero', function() m:barrier(0) end, 'ipc.mutex:barrier', 'at least 1')
      H.raises('lock on a number', function() m.lock(1) end, 'ipc.mutex:lock', 'expected an ipc.mutex')
      H.raises('unlock on a channel', function() m.unlock(ipc.channel()) end, 'ipc.mutex:unlock', 'got userdata')
      H.raises('barrier on nothing', function() m.barrier() end, 'ipc.mutex:barrier')
   end,
}
print('ok')
