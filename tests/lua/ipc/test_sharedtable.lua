-- torch-ipc's test_sharedtable cases (reference C.3), written for our ipc with the regress harness.
local test = require 'regress'
local ipc = require 'libipc'

test {
   testCount = function()
      local t = { 1, 2, 3, 4, 5 }
      local st = ipc.sharedtable(t)
      test.mustBeTrue(#st == #t, 'same count')
   end,

   testMove = function()
      local t = { 1, 2, 3, 4, 5 }
      local st = ipc.sharedtable(t, true)
      test.mustBeTrue(#t == 0, 'moved out')
      for i = 1, 5 do test.mustBeTrue(st[i] == i, 'value ' .. i) end
   end,

   testEmpty = function()
      test.mustBeTrue(#ipc.sharedtable() == 0, 'no argument')
      test.mustBeTrue(#ipc.sharedtable(nil) == 0, 'nil')
   end,

   testRead = function()
      local st = ipc.sharedtable({ 'a', 'b', x = 'y' })
      test.mustBeTrue(st[1] == 'a' and st[2] == 'b' and st.x == 'y', 'values')
   end,

   testWrite = function()
      local st = ipc.sharedtable()
      st[1] = 'a'
      st.x = { 1, 2 }
      test.mustBeTrue(st[1] == 'a' and st.x[2] == 2, 'values')
   end,

   testPairs = function()
      if _VERSION == 'Lua 5.1' then return end -- __pairs needs Lua 5.2 (skipped on LuaJIT, as upstream)
      local st = ipc.sharedtable({ a = 1, b = 2 })
      local n = 0
      for k, v in pairs(st) do n = n + v end
      test.mustBeTrue(n == 3, 'sum')
   end,

   testWriteOnOther = function()
      local st = ipc.sharedtable({ 0 })
      ipc.map(1, function(st) for _ = 1, 100 do st[1] = st[1] + 1 end end, st):join()
      test.mustBeTrue(st[1] == 100, 'incremented by the other thread')
      ipc.map(100, function(st, id) st[id] = id end, st):join()
      for i = 1, 100 do test.mustBeTrue(st[i] == i, 'written by thread ' .. i) end
   end,

   testMultipleWrites = function()
      local st = ipc.sharedtable()
      local m = ipc.mutex()
      ipc.map(10, function(st, m)
         for i = 1, 100 do
            m:lock()
            st[i] = (st[i] or 0) + 1
            m:unlock()
         end
      end, st, m):join()
      for i = 1, 100 do test.mustBeTrue(st[i] == 10, 'key ' .. i) end
   end,

   testExternalType = function()
      local st = ipc.sharedtable()
      st.m = ipc.mutex()
      for i = 1, 5 do st[i] = torch.LongTensor({ 0 }) end
      ipc.map(10, function(st)
         for i = 1, 5 do
            st.m:lock()
            st[i] = st[i] + 1
            st.m:unlock()
         end
      end, st):join()
      for i = 1, 5 do test.mustBeTrue(st[i][1] == 10, 'tensor ' .. i) end
   end,

   testTableIncrement = function()
      local st = ipc.sharedtable()
      local m = ipc.mutex()
      ipc.map(10, function(st, m, id)
         local ipc = require 'libipc'
         m:lock()
         if st.sub == nil then st.sub = ipc.sharedtable() end
         m:unlock()
         for i = 1, 5 do
            m:lock()
            st.sub[i] = (st.sub[i] or 0) + 1
            m:unlock()
         end
      end, st, m):join()
      for i = 1, 5 do test.mustBeTrue(st.sub[i] == 10, 'count ' .. i) end
   end,

   testTableExpand = function()
      local st = ipc.sharedtable()
      local m = ipc.mutex()
      for i = 1, 3 do st[i] = ipc.sharedtable() end
      ipc.map(10, function(st, m)
         for i = 1, 3 do
            m:lock()
            local sub = st[i]
            sub[#sub + 1] = true
            m:unlock()
         end
      end, st, m):join()
      for i = 1, 3 do test.mustBeTrue(#st[i] == 10, 'entries of ' .. i) end
   end,

   testSize = function()
      local st = ipc.sharedtable()
      local before = ipc.sharedtable_size(st)
      local t = {}
      for i = 1, 1000 do t[i] = i end
      for i = 1, 1000 do st[i] = t end
      test.mustBeTrue(ipc.sharedtable_size(st) > before, 'size grew')
   end,

   -- This script never requires torch: loading libipc did, so the tensors the workers stored have
   -- their methods here.
   testTensorsFromWorkers = function()
      local st = ipc.sharedtable()
      st.mutex = ipc.mutex()
      ipc.map(4, function(st)
         for i = 1, 20 do
            st.mutex:lock()
            st[i] = (st[i] or torch.LongTensor({ 0 })) + 1
            st.mutex:unlock()
         end
      end, st):join()
      for i = 1, 20 do test.mustBeTrue(st[i][1] == 4, 'count of ' .. i) end
   end,
}
