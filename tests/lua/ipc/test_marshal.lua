-- torch-ipc's test_marshal cases (reference C.3), written for our ipc with the regress harness.
local test = require 'regress'
local ipc = require 'libipc'

test {
   testWriteRead = function()
      local m = ipc.marshal(23)
      test.mustBeTrue(torch.type(m) == 'userdata', 'torch.type')
      for _ = 1, 3 do test.mustBeTrue(m:read() == 23, 'read') end
   end,

   testMap = function()
      local m = ipc.marshal(23)
      local r = { ipc.map(2, function(m) return m:read(), m end, m):join() }
      test.mustBeTrue(r[1] == 23 and r[3] == 23, 'read in threads')
      test.mustBeTrue(r[2]:read() == 23 and m:read() == 23, 'still readable')
   end,

   testWorkqueue = function()
      local m = ipc.marshal(23)
      local q = ipc.workqueue('marshal queue')
      local workers = ipc.map(2, function()
         local ipc = require 'libipc'
         local q = ipc.workqueue('marshal queue')
         while true do
            local m = q:read()
            if m == nil then break end
            q:write(m)
         end
      end)
      for _ = 1, 5 do q:write(m) end
      for _ = 1, 5 do test.mustBeTrue(q:read():read() == 23, 'back through the queue') end
      q:write(nil, nil)
      workers:join()
      q:close()
   end,

   testTable = function()
      local m = ipc.marshal({ a = 1, f = function(x) return x * 2 end })
      for _ = 1, 3 do
         local t = m:read()
         test.mustBeTrue(t.a == 1 and t.f(21) == 42, 'table with a function')
      end
   end,

   testClosure = function()
      local up = 5
      local obj = { f = function(x) return x + up end }
      test.mustBeFalse(pcall(ipc.marshal, obj), 'a closure is refused')
      local m = ipc.marshal(obj, true)
      test.mustBeTrue(m:read().f(1) == 6, 'with upvalues')
   end,

   testSize = function()
      local m = ipc.marshal(23, 10, 10)
      test.mustBeTrue(m:read() == 23, 'read')
   end,
}
