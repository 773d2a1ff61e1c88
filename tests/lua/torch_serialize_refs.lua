-- Shared references, cycles and storage dedupe: one index counter per File, objects registered
-- before their contents.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local C = require 'torch_serialize_common'

for _, mode in ipairs { 'binary', 'ascii' } do
   -- A table seen twice is one table after loading.
   local shared = { 1, 2 }
   local back = C.roundtrip({ a = shared, b = shared, c = { shared } }, mode)
   assert(back.a == back.b and back.c[1] == back.a and back.a[2] == 2)

   -- Cycles, through values and through keys.
   local cyc = { name = 'root' }
   cyc.self = cyc
   cyc.child = { parent = cyc }
   cyc[cyc.child] = cyc
   local r = C.roundtrip(cyc, mode)
   assert(r.self == r and r.child.parent == r and r[r.child] == r)

   -- Two tensors over one storage: the storage is written once and shared again after loading.
   local base = torch.DoubleTensor(10):fill(1)
   local v1, v2 = base:narrow(1, 1, 5), base:narrow(1, 6, 5)
   local pair = C.roundtrip({ v1, v2, base:storage() }, mode)
   assert(torch.pointer(pair[1]:storage()) == torch.pointer(pair[2]:storage()))
   assert(torch.pointer(pair[3]) == torch.pointer(pair[1]:storage()))
   pair[1][1] = 42
   assert(pair[3][1] == 42 and pair[2]:storageOffset() == 6)
   -- The same tensor twice is one tensor.
   local t = torch.FloatTensor(3)
   local tt = C.roundtrip({ t, t }, mode)
   assert(tt[1] == tt[2])
end

-- The storage is written once: two views cost one storage payload.
local base = torch.DoubleTensor(1000)
local one = #torch.serialize({ base:narrow(1, 1, 10) })
local two = #torch.serialize({ base:narrow(1, 1, 10), base:narrow(1, 11, 10) })
assert(two - one < 200, 'storage written twice: ' .. one .. ' then ' .. two)
-- With references off, it is written for each view.
local f = torch.MemoryFile():binary():referenced(false)
f:writeObject({ base:narrow(1, 1, 10), base:narrow(1, 11, 10) })
assert(f:storage():size() - 1 > two + 7000)
f:close()

-- One counter for tables, torch objects and functions, starting at 1, written in order.
local shared = {}
local function fn() return shared end
local m = torch.MemoryFile():binary()
m:writeObject({ shared, torch.IntTensor(1), fn, shared })
m:seek(1)
local function int() return m:readInt() end
assert(int() == 3 and int() == 1 and int() == 4)                   -- outer table: index 1, 4 pairs
local seen = {}
for _ = 1, 4 do
   assert(int() == 1)                                               -- key: a number
   local k = m:readDouble()
   local tag, index = int(), int()
   seen[k] = { tag, index }
   if k == 1 then
      assert(tag == 3 and index == 2 and int() == 0)                -- shared: new table, index 2
   elseif k == 2 then
      assert(tag == 4 and index == 3)                               -- tensor 3, its storage 4
      m:readChar(m:readInt())
      m:readChar(m:readInt())
      assert(int() == 1)
      m:readLong(3)
      assert(int() == 4 and int() == 4)
      m:readChar(m:readInt())
      m:readChar(m:readInt())
      assert(m:readLong() == 1)
      m:readInt()
   elseif k == 3 then
      assert(tag == 8 and index == 5)                               -- the function
      m:readChar(m:readInt())
      -- Its upvalue list (index 6) with one {name, id, value} entry (index 7); value is `shared`.
      assert(int() == 3 and int() == 6 and int() == 1)
      m:readObject()
      assert(int() == 3 and int() == 7 and int() == 3)
      for _ = 1, 3 do
         local key = m:readObject()
         if key == 'value' then
            assert(int() == 3 and int() == 2)                       -- back-reference to shared
         else
            local value = m:readObject()
            assert(value == (key == 'name' and 'shared' or 1))
         end
      end
   else
      assert(tag == 3 and index == 2)                               -- back-reference only
   end
end
assert(m:position() == m:storage():size())
m:close()

-- References persist across writeObject calls on one File, and across readObject calls.
local m2 = torch.MemoryFile():binary()
local t = { 'x' }
m2:writeObject(t)
m2:writeObject(t)
m2:seek(1)
local a, b = m2:readObject(), m2:readObject()
assert(a == b and a[1] == 'x')
m2:close()

-- Reading with references off a file written with them: each back-reference reads as a fresh
-- object, so the layout no longer matches (Torch documents this as unsupported): an error or a
-- different value, never a crash.
local s = torch.serialize({ t, t })
local ok, v = pcall(function()
   local g = torch.MemoryFile(torch.CharStorage():string(s .. '\0'), 'r'):binary():referenced(false)
   return g:readObject()
end)
assert(not ok or type(v) == 'table')

-- Many objects: more than mlua can hold references to at once (about 65k on LuaJIT).
local many = {}
for i = 1, 70000 do many[i] = { i } end
local back = torch.deserialize(torch.serialize(many))
assert(#back == 70000 and back[69999][1] == 69999)
local fns = {}
for i = 1, 1000 do
   local up = i
   fns[i] = function() return up end
end
local fb = torch.deserialize(torch.serialize(fns))
assert(fb[1000]() == 1000)

print('ok')
