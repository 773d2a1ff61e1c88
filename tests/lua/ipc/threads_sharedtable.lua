-- ipc.sharedtable: copies in and out, # counting every key, nested sharedtables by reference,
-- the move flag, sharedtable_size, concurrent writers.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

test {
   copyInCopyOut = function()
      local inner = { sub = 1 }
      local st = ipc.sharedtable({ key = inner, n = 5 })
      inner.sub = 99
      H.eq(st.key.sub, 1, 'the initial table was copied in')
      st.key.sub = 2
      H.eq(st.key.sub, 1, 'a change to a copy read out does not persist')
      local t = st.key
      t.sub = 3
      st.key = t
      H.eq(st.key.sub, 3, 'writing the table back does')
      st.n = nil
      H.eq(st.n, nil, 'nil deletes')
      H.eq(st.missing, nil, 'a missing key')
   end,

   lengthCountsEveryKey = function()
      local st = ipc.sharedtable({ 1, 2, 3, a = 'x', [10] = 'y' })
      H.eq(#st, 5, 'all keys')
      st.b = true
      H.eq(#st, 6, 'after a write')
      st[1] = nil
      H.eq(#st, 5, 'after a delete')
      H.eq(#ipc.sharedtable(), 0, 'empty')
      H.eq(#ipc.sharedtable(nil), 0, 'empty from nil')
      H.eq(#ipc.sharedtable({}), 0, 'empty from {}')
   end,

   keysAsLuaComparesThem = function()
      local st = ipc.sharedtable()
      st[1] = 'one'
      H.eq(st[1.0], 'one', 'integral float key')
      st['1'] = 'string one'
      H.eq(st[1], 'one', 'a string key is another key')
      st[true] = 'yes'
      H.eq(st[true], 'yes', 'boolean key')
      -- Every index reaches the data, names of methods included.
      st.retain, st.metatablename, st.read = 'r', 'm', 'x'
      H.eq(st.retain, 'r', 'key retain')
      H.eq(st.metatablename, 'm', 'key metatablename')
      H.eq(st.read, 'x', 'key read')
   end,

   nestedSharedTablesByReference = function()
      local st = ipc.sharedtable()
      st.child = ipc.sharedtable({ count = 0 })
      st.child.count = 5
      H.eq(st.child.count, 5, 'a nested sharedtable is the same table')
      ipc.map(4, function(st, id) st.child['t' .. id] = id end, st):join()
      H.eq(#st.child, 5, 'keys written through the nested table by every thread')
      -- Created inside a thread and stored: still one table.
      ipc.map(1, function(st) st.made = require('libipc').sharedtable({ x = 1 }) end, st):join()
      st.made.x = 2
      H.eq(st.made.x, 2, 'a sharedtable made in a thread')
      H.eq(st.child.count, 5, 'count kept')
   end,

   moveFlag = function()
      local t = { 1, 2, 3, a = 'x' }
      local st = ipc.sharedtable(t, true)
      H.eq(next(t), nil, 'the table was emptied')
      H.eq(#st, 4, 'everything moved')
      H.eq(st[3], 3, 'value')
      local kept = { 1, 2 }
      ipc.sharedtable(kept, false)
      H.eq(#kept, 2, 'without the flag nothing moves')
   end,

   sizeGrows = function()
      local st = ipc.sharedtable()
      local s0 = ipc.sharedtable_size(st)
      H.eq(type(s0), 'number', 'a number')
      local big = {}
      for i = 1, 1000 do big[i] = i end
      for i = 1, 100 do st[i] = big end
      local s1 = ipc.sharedtable_size(st)
      assert(s1 > s0, 'size grew: ' .. s0 .. ' -> ' .. s1)
   end,

   concurrentWritersWithAMutex = function()
      local st = ipc.sharedtable()
      local m = ipc.mutex()
      ipc.map(8, function(st, m)
         for i = 1, 50 do
            m:lock()
            st[i] = (st[i] or 0) + 1
            m:unlock()
         end
      end, st, m):join()
      for i = 1, 50 do H.eq(st[i], 8, 'key ' .. i) end
   end,

   tensorsAndHandlesInside = function()
      local st = ipc.sharedtable()
      local t = torch.DoubleTensor(2):zero()
      st.t = t
      st.m = ipc.mutex()
      ipc.map(2, function(st, id) st.m:lock(); st.t[id] = id; st.m:unlock() end, st):join()
      H.eq(t[1] + t[2], 3, 'the tensor inside is shared')
   end,

   badArguments = function()
      H.raises('not a table', function() ipc.sharedtable(5) end, 'ipc.sharedtable', 'sharedtable arg #1 expected to be a table or nil')
      H.raises('move flag', function() ipc.sharedtable({}, 'yes') end, 'ipc.sharedtable', 'boolean or nil expected')
      H.raises('requires', function() ipc.sharedtable({}, false, 5) end, 'ipc.sharedtable', 'bad argument #3')
      H.raises('size', function() ipc.sharedtable({}, false, '', 'x') end, 'ipc.sharedtable', 'bad argument #4')
      local st = ipc.sharedtable()
      H.raises('table key', function() st[{}] = 1 end, 'ipc.sharedtable', 'keys must be numbers, strings or booleans')
      H.raises('NaN key', function() return st[0 / 0] end, 'ipc.sharedtable', 'NaN')
      local u = 1
      H.raises('closure value', function() st.f = function() return u end end, 'Attempt to serialize closure')
      H.raises('size of a non-sharedtable', function() ipc.sharedtable_size({}) end, 'ipc.sharedtable_size', 'got table')
      H.raises('size of nothing', function() ipc.sharedtable_size() end, 'ipc.sharedtable_size')
   end,
}
print('ok')
