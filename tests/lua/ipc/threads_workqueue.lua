-- ipc.workqueue: named and anonymous queues, the creator flag, which FIFO each side reads and
-- writes, multi-item writes, nil items, non-blocking reads, writeup, drain, close, and a read that
-- can never be answered.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

-- A worker that answers every item with `answer(item)` until it reads the string 'stop'.
local function echo(q, how)
   return ipc.map(1, function(q, how)
      while true do
         local v = q:read()
         if v == 'stop' then break end
         if how == 'double' then q:write(v * 2) else q:write(v) end
      end
   end, q, how)
end

test {
   namedQueuesAndTheCreatorFlag = function()
      local q1, c1 = ipc.workqueue('threads_workqueue named')
      local q2, c2 = ipc.workqueue('threads_workqueue named')
      H.eq(c1, 1, 'creator flag of the first open')
      H.eq(c2, 0, 'creator flag of the second open')
      H.eq(math.type and math.type(c1) or type(c1), math.type and 'integer' or 'number', 'the flag is a number')
      -- Both handles are one queue: a worker opening it by name answers through it.
      local m = ipc.map(1, function()
         local q, created = require('libipc').workqueue('threads_workqueue named')
         local v = q:read()
         q:write(v + 1, created)
      end)
      q1:write(41)
      H.eq(q2:read(), 42, 'answer read through the other handle')
      H.eq(q1:read(), 0, 'the worker was not the creator')
      m:join()
      q1:close()
      q2:close()
      -- Once every handle is gone the name is free again.
      collectgarbage()
      local q3, c3 = ipc.workqueue('threads_workqueue named')
      H.eq(c3, 1, 'a new queue after all handles closed')
      q3:close()
   end,

   anonymousQueues = function()
      local a, ca = ipc.workqueue()
      local b, cb = ipc.workqueue(nil)
      H.eq(ca, 1, 'creator flag')
      H.eq(cb, 1, 'creator flag')
      local m = echo(a, 'double')
      a:write(21)
      H.eq(a:read(), 42, 'answer')
      a:write('stop')
      m:join()
      H.eq(select('#', b:read(true)), 0, 'another anonymous queue is a different queue')
   end,

   directionRules = function()
      local q = ipc.workqueue()
      -- The owner's own question is not an answer: its read does not take it.
      q:write('question')
      H.eq(select('#', q:read(true)), 0, 'owner read sees no answer')
      -- Another thread reads the question and its write is an answer.
      local m = ipc.map(1, function(q)
         local v = q:read()
         local own = select('#', q:read(true))
         q:write(v .. ' answered', own)
      end, q)
      H.eq(q:read(), 'question answered', 'answer')
      H.eq(q:read(), 0, 'the worker did not read its own answer')
      m:join()
   end,

   multiArgumentWriteIsOneItemPerArgument = function()
      local q = ipc.workqueue()
      local m = ipc.map(1, function(q)
         local got = {}
         for i = 1, 5 do got[i] = q:read() end
         q:write(unpack(got, 1, 5))
      end, q)
      q:write(1, 'two', 3, true, { five = 5 })
      H.eq(q:read(), 1, 'item 1')
      H.eq(q:read(), 'two', 'item 2')
      H.eq(q:read(), 3, 'item 3')
      H.eq(q:read(), true, 'item 4')
      H.eq(q:read().five, 5, 'item 5')
      m:join()
   end,

   nonBlockingReadOnEmptyReturnsNothing = function()
      local q = ipc.workqueue()
      H.eq(select('#', q:read(true)), 0, 'no values')
      H.eq(select('#', q:read(true)), 0, 'still no values')
      local m = ipc.map(1, function(q) return select('#', q:read(true)) end, q)
      H.eq(m:join(), 0, 'nothing for the worker either')
   end,

   nilItems = function()
      local q = ipc.workqueue()
      local m = ipc.map(1, function(q)
         local n1 = select('#', q:read())
         local v = q:read()
         q:write(nil, n1, v)
      end, q)
      q:write(nil, 'after nil')
      H.eq(select('#', q:read()), 1, 'a nil item is one value')
      H.eq(q:read(), 1, 'the worker read one value for the nil item')
      H.eq(q:read(), 'after nil', 'the item after the nil')
      m:join()
   end,

   valuesOfEveryKind = function()
      local q = ipc.workqueue()
      local m = echo(q)
      local values = { true, false, 0, -1.5, 2 ^ 53, 1 / 0, '', 'with\0zero', string.rep('x', 100000),
         { 1, 2, { deep = { er = 'x' } } }, { [true] = 'bool key', [1.5] = 'float key' } }
      for _, v in ipairs(values) do
         q:write(v)
         local back = q:read()
         assert(H.deq(back, v), 'round trip of ' .. tostring(v))
      end
      q:write(0 / 0)
      local nan = q:read()
      assert(nan ~= nan, 'NaN')
      q:write('stop')
      m:join()
   end,

   tensorsTravelShared = function()
      local q = ipc.workqueue()
      local m = ipc.map(1, function(q)
         local t = q:read()
         t:fill(13)
         q:write(t)
      end, q)
      local t = torch.FloatTensor(4):zero()
      q:write(t)
      local back = q:read()
      H.eq(t:sum(), 52, 'filled by the worker')
      H.eq(torch.pointer(back:storage()), torch.pointer(t:storage()), 'same storage')
      m:join()
   end,

   writeupCarriesUpvalues = function()
      local q = ipc.workqueue()
      local m = ipc.map(1, function(q)
         local f = q:read()
         q:writeup(f(1), function() return 'from the worker' end)
      end, q)
      local base, scale = 10, 3
      local function helper(x) return x * scale end
      H.raises('write of a closure', function() q:write(function(x) return helper(x) + base end) end,
         'ipc.workqueue:write', "Attempt to serialize closure", 'writeup()')
      q:writeup(function(x) return helper(x) + base end)
      H.eq(q:read(), 13, 'closure result computed by the worker')
      H.eq(q:read()(), 'from the worker', 'a function back')
      m:join()
   end,

   aRefusedWriteWritesNothing = function()
      local q = ipc.workqueue()
      local u = 1
      H.raises('closure among items', function() q:write(1, 2, function() return u end) end, 'Attempt to serialize closure')
      local m = ipc.map(1, function(q) return select('#', q:read(true)) end, q)
      H.eq(m:join(), 0, 'none of the items was written')
   end,

   drain = function()
      local q = ipc.workqueue()
      local m = echo(q)
      for i = 1, 13 do q:write(i) end
      q:drain()
      for i = 1, 13 do H.eq(q:read(true), i, 'answer ' .. i .. ' already there') end
      H.eq(select('#', q:read(true)), 0, 'nothing more')
      q:drain() -- nothing outstanding: returns at once
      local other = ipc.map(1, function(q)
         local ok, err = pcall(q.drain, q)
         return ok, err
      end, q)
      local ok, err = other:join()
      H.eq(ok, false, 'drain on a non-owner thread')
      assert(tostring(err):find('workqueue drain is only available on the owner thread', 1, true), err)
      q:write('stop')
      m:join()
   end,

   close = function()
      local q = ipc.workqueue()
      q:close()
      H.raises('read after close', function() q:read(true) end, 'ipc.workqueue:read', 'workqueue is not open')
      H.raises('write after close', function() q:write(1) end, 'ipc.workqueue:write', 'workqueue is not open')
      H.raises('writeup after close', function() q:writeup(1) end, 'workqueue is not open')
      H.raises('drain after close', function() q:drain() end, 'workqueue is not open')
      H.raises('second close', function() q:close() end, 'ipc.workqueue:close', 'workqueue is already closed')
      H.raises('passing a closed queue', function() ipc.map(1, function(q) end, q) end, 'ipc.map')
   end,

   closeOneHandleOthersLive = function()
      -- testAnon's shape: the main thread closes its handle; the worker's handle keeps the queue.
      local q = ipc.workqueue()
      local m = ipc.map(1, function(q)
         local v = q:read()
         q:write(v + 1)
         return 'worker done'
      end, q)
      q:write(1)
      H.eq(q:read(), 2, 'answer')
      q:close()
      H.eq(m:join(), 'worker done', 'worker')
   end,

   readWithNoOtherHolderRaises = function()
      local q = ipc.workqueue()
      H.raises('blocking read on a queue nobody else holds', function() q:read() end,
         'ipc.workqueue:read', 'nothing can arrive')
      H.raises('drain of a queue nobody else holds', function()
         q:write(1)
         q:drain()
      end, 'ipc.workqueue:drain', 'nothing can answer')
      -- In a worker too, once the main thread's handle is gone.
      local q2 = ipc.workqueue()
      local c = ipc.channel()
      local m = ipc.map(1, function(q, c)
         c:read()
         return pcall(q.read, q)
      end, q2, c)
      q2:close()
      q2 = nil
      collectgarbage()
      c:write('go')
      local ok, err = m:join()
      -- The map's own copy of its arguments holds the queue until join, so the worker may have
      -- been answered by the check or not; what it must not do is hang. It can only raise.
      H.eq(ok, false, 'the worker read raised')
      assert(tostring(err):find('nothing can arrive', 1, true), err)
   end,

   badArguments = function()
      H.raises('name of a wrong type', function() ipc.workqueue(5) end, 'ipc.workqueue', 'bad argument #1')
      H.raises('size of a wrong type', function() ipc.workqueue('x', 'big') end, 'ipc.workqueue', 'bad argument #2')
      H.raises('negative size', function() ipc.workqueue('x', -1) end, 'ipc.workqueue', 'bad argument #2')
      local q = ipc.workqueue()
      H.raises('read with a string flag', function() q:read('yes') end, 'ipc.workqueue:read', 'boolean or nil expected')
      H.raises('read on a number', function() q.read(5) end, 'ipc.workqueue:read', 'expected an ipc.workqueue')
      H.raises('write on nothing', function() q.write() end, 'ipc.workqueue:write', 'expected an ipc.workqueue')
      H.raises('write on a channel', function() q.write(ipc.channel(), 1) end, 'ipc.workqueue:write', 'got userdata')
      H.raises('drain on a table', function() q.drain({}) end, 'ipc.workqueue:drain', 'got table')
      H.raises('close on a string', function() q.close('q') end, 'ipc.workqueue:close', 'got string')
      H.raises('a coroutine item', function() q:write(coroutine.create(function() end)) end, 'ipc.workqueue:write')
   end,
}
print('ok')
