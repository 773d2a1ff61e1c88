-- torch-ipc's test_channel cases (reference C.3), written for our ipc with the regress harness.
local test = require 'regress'
local ipc = require 'libipc'

test {
   statusEnumsSet = function()
      local OPEN, CLOSED, DRAINED = ipc.channel.OPEN, ipc.channel.CLOSED, ipc.channel.DRAINED
      test.mustBeTrue(type(OPEN) == 'number' and type(CLOSED) == 'number' and type(DRAINED) == 'number', 'numbers')
      test.mustBeTrue(OPEN ~= CLOSED and CLOSED ~= DRAINED and OPEN ~= DRAINED, 'distinct')
      local c = ipc.channel()
      for _, name in ipairs { 'read', 'write', 'num_items', 'close', 'closed', 'drained' } do
         test.mustBeTrue(type(c[name]) == 'function', name .. ' is a function')
      end
   end,

   openReadWriteSameThread = function()
      local c = ipc.channel()
      test.mustBeTrue(c:write(10) == ipc.channel.OPEN, 'write status')
      test.mustBeTrue(c:num_items() == 1, 'one item')
      local status, v = c:read(true)
      test.mustBeTrue(status == ipc.channel.OPEN and v == 10, 'read 10')
      c:write(nil)
      status, v = c:read(true)
      test.mustBeTrue(status == ipc.channel.OPEN and v == nil, 'read nil')
   end,

   openReadMultiWriteSameThread = function()
      local c = ipc.channel()
      local items = {}
      for i = 1, 12 do items[i] = i end
      c:write(unpack(items))
      test.mustBeTrue(c:num_items() == 12, 'twelve items')
      for i = 1, 12 do
         local status, v = c:read()
         test.mustBeTrue(status == ipc.channel.OPEN and v == i, 'item ' .. i)
      end
   end,

   openReadWriteDifferentThread = function()
      local c = ipc.channel()
      local producer = ipc.map(1, function(c)
         for _, v in ipairs { true, 10, 'foo' } do c:write(v) end
      end, c)
      local consumer = ipc.map(1, function(c)
         local test = require 'regress'
         local ipc = require 'libipc'
         for _, want in ipairs { true, 10, 'foo' } do
            local status, v = c:read()
            test.mustBeTrue(status == ipc.channel.OPEN, 'status')
            test.mustBeTrue(v == want, 'value ' .. tostring(want))
         end
      end, c)
      producer:join()
      consumer:join()
   end,

   flagsOnClosedChannel = function()
      local c = ipc.channel()
      c:close()
      c:close()
      test.mustBeTrue(c:closed(), 'closed')
      test.mustBeTrue(c:drained(), 'drained')
      c = ipc.channel()
      c:write('foo')
      c:close()
      test.mustBeTrue(c:write('bar') == ipc.channel.CLOSED, 'write to a closed channel')
      local status, v = c:read()
      test.mustBeTrue(status == ipc.channel.CLOSED and v == 'foo', 'last item')
      status, v = c:read()
      test.mustBeTrue(status == ipc.channel.DRAINED and v == nil, 'drained')
      test.mustBeTrue(c:write('baz') == ipc.channel.DRAINED, 'write to a drained channel')
      test.mustBeTrue(c:num_items() == 0, 'no items')
   end,

   sendChannelInChannel = function()
      local ca, cb = ipc.channel(), ipc.channel()
      local worker = ipc.map(1, function(ca)
         local _, cb = ca:read()
         while true do
            local _, v = ca:read()
            cb:write(v)
            if v == 'STOP' then break end
         end
      end, ca)
      ca:write(cb)
      for i = 1, 10 do ca:write(i) end
      ca:write('STOP')
      for i = 1, 10 do
         local _, v = cb:read()
         test.mustBeTrue(v == i, 'echo ' .. i)
      end
      local _, v = cb:read()
      test.mustBeTrue(v == 'STOP', 'stop')
      worker:join()
   end,

   channelClosedWhileProducersWaiting = function()
      local c, waiting = ipc.channel(), ipc.channel()
      local readers = ipc.map(10, function(c, waiting)
         waiting:write(true)
         return c:read()
      end, c, waiting)
      for _ = 1, 10 do waiting:read() end
      sys.sleep(0.05) -- give them a moment to block (not needed for correctness)
      c:close()
      local r = { readers:join() }
      test.mustBeTrue(#r == 10, 'every reader returned')
      for i = 1, 10 do test.mustBeTrue(r[i] == ipc.channel.DRAINED, 'reader ' .. i) end
   end,

   channelsAsWorkQueue = function()
      local input, results = ipc.channel(), ipc.channel()
      local generators = ipc.map(10, function(input) for i = 1, 100 do input:write(i) end end, input)
      local workers = ipc.map(5, function(input, results)
         local ipc = require 'libipc'
         while true do
            local status, v = input:read()
            if status == ipc.channel.DRAINED then break end
            results:write(v)
         end
      end, input, results)
      generators:join()
      input:close()
      workers:join()
      test.mustBeTrue(input:drained(), 'input drained')
      results:close()
      local counts, n = {}, 0
      while true do
         local status, v = results:read()
         if status == ipc.channel.DRAINED then break end
         counts[v] = (counts[v] or 0) + 1
         n = n + 1
      end
      test.mustBeTrue(n == 1000, '1000 results, got ' .. n)
      for i = 1, 100 do test.mustBeTrue(counts[i] == 10, 'value ' .. i .. ' ten times') end
      test.mustBeTrue(results:closed() and results:drained(), 'results closed and drained')
   end,

   pingPong = function()
      local pings, pongs = ipc.channel(), ipc.channel()
      local pinger = ipc.map(1, function(pings)
         for _ = 1, 10 do pings:write('ping?') end
         pings:close()
      end, pings)
      local ponger = ipc.map(1, function(pings, pongs)
         local ipc = require 'libipc'
         while true do
            local status, v = pings:read()
            if status == ipc.channel.DRAINED then break end
            pongs:write('pong!')
         end
         pongs:close()
      end, pings, pongs)
      local n = 0
      while true do
         local status, v = pongs:read()
         if status == ipc.channel.DRAINED then break end
         test.mustBeTrue(v == 'pong!', 'pong')
         n = n + 1
      end
      test.mustBeTrue(n == 10, 'ten pongs')
      pinger:join()
      ponger:join()
   end,
}
