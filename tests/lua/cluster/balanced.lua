-- The load-balanced view: apply, map (ordered, unordered, chunked), errors with the engine's
-- traceback, async results (ready, wait, get, progress, elapsed, metadata, abort), and a second
-- client seeing the same engines. arg[1]: the profile.
local cluster = require 'cluster'
local c = cluster.client(arg[1])
local ids = c:wait_for_engines(2, 30)
local lbv = c:load_balanced_view()

local a, b, n = lbv:apply(function(x, y) return x + y, 'second', nil end, 1, 2)
assert(a == 3 and b == 'second' and n == nil, 'apply returns every value')

local list = {}
for i = 1, 200 do
   list[i] = i
end
for _, chunk in ipairs{ 1, 7, 100, 1000 } do
   local r = lbv:map(function(x) return x * 2 end, list, { chunksize = chunk })
   assert(#r == 200, 'map length')
   for i = 1, 200 do
      assert(r[i] == 2 * i, 'map keeps the order')
   end
end
assert(#lbv:map(function(x) return x end, {}) == 0, 'an empty map')

-- Both engines take part.
local where = lbv:map(function() local t = os.clock() + 0.002 while os.clock() < t do end return __engineid end, list)
local seen = {}
for _, e in ipairs(where) do
   seen[e] = true
end
assert(seen[ids[1]] and seen[ids[2]], 'the load is spread over the engines')

-- Unordered: every result, in the order they finished.
local un = lbv:map(function(x) return x end, list, { ordered = false, chunksize = 10 })
table.sort(un)
for i = 1, 200 do
   assert(un[i] == i)
end

-- Async.
local ar = lbv:map(function(x) return -x end, list, { block = false, chunksize = 5 })
assert(ar:wait(30), 'wait')
assert(ar:ready() and ar:progress() == 40)
local r = ar:get()
assert(r[200] == -200 and #ar.metadata == 40 and ar.metadata[1].engine ~= nil)
assert(tostring(ar):match('AsyncResult'))

-- wait with a timeout that passes first.
local slow = lbv:apply_with({ block = false }, function() local t = os.clock() + 1 while os.clock() < t do end return 'done' end)
assert(slow:wait(0) == false or slow:ready())
assert(slow:get(60) == 'done')
local ok, err = pcall(function()
   return lbv:apply_with({ block = false }, function() local t = os.clock() + 2 while os.clock() < t do end end):get(0.01)
end)
assert(not ok and err:match('0 of 1 tasks finished within 0.01 s'), err)

-- An engine's error: the task's index, the engine, the message and its traceback.
ok, err = pcall(lbv.map, lbv, function(x) if x == 3 then error('bad item ' .. x) end return x end, { 1, 2, 3, 4 })
assert(not ok and err:match('task 3 failed on engine %d+: .*bad item 3') and err:match('stack traceback'), err)
ok, err = pcall(lbv.apply, lbv, function() local t = nil; return t.field end)
assert(not ok and err:match("attempt to index local 't'"), err)
-- The engines are fine afterwards.
assert(lbv:apply(function() return 'alive' end) == 'alive')

-- abort: queued tasks are dropped.
local many = lbv:map(function() local t = os.clock() + 0.01 while os.clock() < t do end end, list, { block = false })
many:abort()
ok, err = pcall(many.get, many)
assert(not ok and err:match('aborted'), err)

-- A second client sees the same engines and their globals.
local dv = c:direct_view()
dv:push{ shared = 'from the first client' }
local c2 = cluster.client(arg[1])
local same = c2:ids()
assert(#same == 2 and same[1] == ids[1])
assert(c2:direct_view():pull('shared')[1] == 'from the first client')
c2:close()

-- Status: the engines, their state, tasks and memory.
local s = c:status()
assert(#s == 2 and s[1].id == ids[1] and s[1].state and s[1].tasks > 0 and s[1].pid > 0, 'status')
assert(s.controller.pid > 0 and s.controller.rss_kb > 0)
c:close()
print('ok')
