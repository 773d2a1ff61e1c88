-- ipc.channel: the status numbers, multi-item writes, non-blocking reads, close and drain, blocked
-- readers woken by close, a channel sent through a channel, values of every kind.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

local OPEN, CLOSED, DRAINED = ipc.channel.OPEN, ipc.channel.CLOSED, ipc.channel.DRAINED

test {
   statusCodes = function()
      H.eq(OPEN, 0, 'OPEN')
      H.eq(CLOSED, 1, 'CLOSED')
      H.eq(DRAINED, 2, 'DRAINED')
      H.eq(type(ipc.channel), 'table', 'ipc.channel is a table')
      local c = ipc.channel('arguments', 'are', 'ignored')
      for _, name in ipairs { 'read', 'write', 'num_items', 'close', 'closed', 'drained' } do
         H.eq(type(c[name]), 'function', 'method ' .. name)
      end
      H.eq(c:closed(), false, 'closed')
      H.eq(c:drained(), false, 'drained')
   end,

   multiItemWriteAndCount = function()
      local c = ipc.channel()
      H.eq(c:write(1, 'two', nil, false), OPEN, 'write status')
      H.eq(c:num_items(), 4, 'num_items')
      H.same_list(H.pack(c:read()), H.pack(OPEN, 1), 'item 1')
      H.same_list(H.pack(c:read()), H.pack(OPEN, 'two'), 'item 2')
      H.same_list(H.pack(c:read()), H.pack(OPEN, nil), 'item 3 (nil)')
      H.same_list(H.pack(c:read(true)), H.pack(OPEN, false), 'item 4')
      H.eq(c:num_items(), 0, 'num_items after reads')
      H.same_list(H.pack(c:read(true)), H.pack(OPEN), 'non-blocking read of an empty channel: status only')
      H.eq(c:write(), OPEN, 'a write of nothing')
      H.eq(c:num_items(), 0, 'wrote nothing')
   end,

   closeAndDrain = function()
      local c = ipc.channel()
      c:close()
      c:close()
      H.eq(c:closed(), true, 'closed')
      H.eq(c:drained(), true, 'an empty channel drains when closed')
      H.same_list(H.pack(c:read()), H.pack(DRAINED), 'read of a drained channel')
      H.same_list(H.pack(c:read(true)), H.pack(DRAINED), 'non-blocking read of a drained channel')

      c = ipc.channel()
      c:write('a', 'b')
      c:close()
      H.eq(c:drained(), false, 'not drained while items remain')
      H.eq(c:write('c'), CLOSED, 'write to a closed channel')
      H.eq(c:num_items(), 2, 'nothing written')
      H.same_list(H.pack(c:read()), H.pack(CLOSED, 'a'), 'first item of a closed channel')
      H.same_list(H.pack(c:read()), H.pack(CLOSED, 'b'), 'last item')
      H.eq(c:drained(), true, 'drained after the last item')
      H.eq(c:write('d'), DRAINED, 'write to a drained channel')
      H.same_list(H.pack(c:read()), H.pack(DRAINED), 'read after the last item')
   end,

   producerToConsumer = function()
      local c = ipc.channel()
      local producer = ipc.map(1, function(c)
         for i = 1, 10000 do c:write(i) end
         c:write({ done = true }, 'bye')
         c:close()
      end, c)
      local sum, n = 0, 0
      while true do
         local status, v = c:read()
         if status == DRAINED then break end
         if type(v) == 'number' then sum = sum + v; n = n + 1 end
      end
      producer:join()
      H.eq(n, 10000, 'items')
      H.eq(sum, 50005000, 'sum')
   end,

   closeWakesBlockedReaders = function()
      local c, started = ipc.channel(), ipc.channel()
      local readers = ipc.map(10, function(c, started, id)
         started:write(id)
         return c:read()
      end, c, started)
      for _ = 1, 10 do started:read() end
      c:close()
      local r = H.pack(readers:join())
      H.eq(r.n, 10, 'every reader returned')
      for i = 1, 10 do H.eq(r[i], DRAINED, 'reader ' .. i) end
   end,

   channelInsideAChannel = function()
      local ca, cb = ipc.channel(), ipc.channel()
      local m = ipc.map(1, function(ca)
         local _, cb = ca:read()
         while true do
            local _, v = ca:read()
            cb:write(v)
            if v == 'STOP' then break end
         end
      end, ca)
      ca:write(cb)
      for i = 1, 5 do ca:write(i) end
      ca:write('STOP')
      for i = 1, 5 do H.same_list(H.pack(cb:read()), H.pack(OPEN, i), 'echo ' .. i) end
      H.same_list(H.pack(cb:read()), H.pack(OPEN, 'STOP'), 'stop')
      m:join()
      -- A channel inside a table, and a channel in itself.
      local c = ipc.channel()
      c:write({ inner = c })
      local _, t = c:read()
      t.inner:write('through the copy')
      H.same_list(H.pack(c:read()), H.pack(OPEN, 'through the copy'), 'same channel')
   end,

   manyProducersManyConsumers = function()
      local input, results = ipc.channel(), ipc.channel()
      local producers = ipc.map(4, function(input) for i = 1, 250 do input:write(i) end end, input)
      local consumers = ipc.map(3, function(input, results)
         while true do
            local status, v = input:read()
            if status == 2 then break end
            results:write(v)
         end
      end, input, results)
      producers:join()
      input:close()
      consumers:join()
      results:close()
      local counts, n = {}, 0
      while true do
         local status, v = results:read()
         if status == DRAINED then break end
         counts[v] = (counts[v] or 0) + 1
         n = n + 1
      end
      H.eq(n, 1000, 'results')
      for i = 1, 250 do H.eq(counts[i], 4, 'count of ' .. i) end
   end,

   valuesOfEveryKind = function()
      local c = ipc.channel()
      local t = torch.IntTensor(3):fill(7)
      local values = { 'with\0zero', '', 1.25, -0, { a = { 1, 2 }, [2] = 'x' }, t }
      c:write(unpack(values))
      for i, v in ipairs(values) do
         local status, back = c:read()
         H.eq(status, OPEN, 'status ' .. i)
         if torch.isTensor(v) then
            H.eq(torch.pointer(back:storage()), torch.pointer(v:storage()), 'tensor shared')
         else
            assert(H.deq(back, v), 'value ' .. i)
         end
      end
      local f = function(x) return x + 1 end
      c:write(f)
      H.eq(select(2, c:read())(1), 2, 'a function without upvalues')
      local u = 1
      H.raises('closure', function() c:write(function() return u end) end, 'ipc.channel:write', 'Attempt to serialize closure')
      H.eq(c:num_items(), 0, 'nothing written')
   end,

   readWithNoOtherHolderRaises = function()
      local c = ipc.channel()
      H.raises('blocking read', function() c:read() end, 'ipc.channel:read', 'nothing can arrive')
      c:close()
      H.same_list(H.pack(c:read()), H.pack(DRAINED), 'but a closed one answers DRAINED')
   end,

   badArguments = function()
      local c = ipc.channel()
      H.raises('read flag', function() c:read(1) end, 'ipc.channel:read', 'boolean or nil expected')
      H.raises('read on a number', function() c.read(1) end, 'ipc.channel:read', 'expected an ipc.channel')
      H.raises('write on nothing', function() c.write() end, 'ipc.channel:write', 'expected an ipc.channel')
      H.raises('write on a queue', function() c.write(ipc.workqueue(), 1) end, 'ipc.channel:write', 'got userdata')
      H.raises('num_items on a table', function() c.num_items({}) end, 'ipc.channel:num_items', 'got table')
      H.raises('close on a string', function() c.close('x') end, 'ipc.channel:close')
      H.raises('closed on nil', function() c.closed() end, 'ipc.channel:closed')
      H.raises('drained on a boolean', function() c.drained(true) end, 'ipc.channel:drained')
      H.raises('a thread item', function() c:write(coroutine.create(function() end)) end, 'ipc.channel:write')
   end,
}
print('ok')
