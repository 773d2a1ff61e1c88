-- ipc.marshal: packed once, read any number of times in any thread; the upvalue flag; close.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

test {
   readManyTimes = function()
      local m = ipc.marshal({ a = { 1, 2, 3 }, s = 'x' })
      H.eq(torch.type(m), 'userdata', 'torch.type')
      local first, second = m:read(), m:read()
      assert(H.deq(first, { a = { 1, 2, 3 }, s = 'x' }), 'content')
      assert(first ~= second, 'each read is a fresh copy')
      first.a[1] = 'changed'
      H.eq(m:read().a[1], 1, 'a change to one copy does not reach the next')
   end,

   acrossThreads = function()
      local t = torch.FloatTensor(2):zero()
      local m = ipc.marshal({ n = 23, t = t })
      local r = H.pack(ipc.map(3, function(m, id)
         local v = m:read()
         v.t[1] = v.t[1] + 0 -- touch the shared tensor
         if id == 1 then v.t[2] = 5 end
         return v.n, m
      end, m):join())
      H.eq(r[1], 23, 'read in a thread')
      H.eq(r[6]:read().n, 23, 'a marshal returned by a thread')
      H.eq(t[2], 5, 'the tensor inside is shared')
      local q = ipc.workqueue()
      local w = ipc.map(1, function(q) local m = q:read(); q:write(m:read().n + 1, m) end, q)
      q:write(m)
      H.eq(q:read(), 24, 'through a queue')
      H.eq(q:read():read().n, 23, 'back through the queue')
      w:join()
   end,

   upvalueFlag = function()
      local bias = 3
      local f = function(x) return x + bias end
      H.raises('closure without the flag', function() ipc.marshal(f) end, 'ipc.marshal', 'Attempt to serialize closure')
      local m = ipc.marshal(f, true)
      H.eq(m:read()(1), 4, 'closure with its upvalue')
      H.eq(ipc.map(1, function(m) return m:read()(10) end, m):join(), 13, 'in a thread')
      H.eq(ipc.marshal(23, 10, 10):read(), 23, 'size arguments')
      H.eq(ipc.marshal(function(x) return x * 2 end):read()(4), 8, 'a plain function')
   end,

   close = function()
      local m = ipc.marshal(1)
      m:close()
      H.raises('read after close', function() m:read() end, 'ipc.marshal:read', 'marshal is not open')
      H.raises('second close', function() m:close() end, 'ipc.marshal:close', 'marshal is already closed')
   end,

   badArguments = function()
      H.raises('nothing to marshal', function() ipc.marshal() end, 'ipc.marshal', 'must provide object to serialize at arg 1')
      H.raises('nil to marshal', function() ipc.marshal(nil, true) end, 'must provide object to serialize at arg 1')
      H.raises('a size of a wrong type', function() ipc.marshal(1, false, 'big') end, 'ipc.marshal', 'bad argument #3')
      H.raises('a coroutine', function() ipc.marshal(coroutine.create(function() end)) end, 'ipc.marshal')
      local m = ipc.marshal(1)
      H.raises('read on a number', function() m.read(5) end, 'ipc.marshal:read', 'expected an ipc.marshal')
      H.raises('close on a table', function() m.close({}) end, 'ipc.marshal:close', 'got table')
   end,
}
print('ok')
