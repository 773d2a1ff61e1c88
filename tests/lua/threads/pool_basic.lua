-- threads.Threads: init functions, jobs and end callbacks, async use, specific mode, upvalues.
local threads = require 'threads'

-- Init functions run in order on every thread; the last one's results come back.
local pool, initres = threads.Threads(3,
   function(id) greeting = 'hello ' .. id end,
   function(id) return id, greeting end)
assert(pool.N == 3)
assert(#initres == 3)
local seen = {}
for _, r in ipairs(initres) do
   assert(r[2] == 'hello ' .. r[1], tostring(r[2]))
   seen[r[1]] = true
end
assert(seen[1] and seen[2] and seen[3])

-- Arguments go in, results (nils in the middle included) come back to the end callback.
local got
pool:addjob(function(a, b, c) return c, nil, a + b, __threadid end,
   function(...) got = { n = select('#', ...), ... } end, 1, 2, 'x')
pool:synchronize()
assert(got.n == 4 and got[1] == 'x' and got[2] == nil and got[3] == 3, tostring(got.n))
assert(got[4] >= 1 and got[4] <= 3)

-- Upvalues travel with the job; a global made by an init function is there.
local base, tbl = 10, { 1, 2, 3 }
local sum = 0
for i = 1, 20 do
   pool:addjob(function() return base + i + #tbl, greeting ~= nil end,
      function(v, g) sum = sum + v; assert(g) end)
end
pool:synchronize()
assert(sum == 20 * 13 + 210, sum)
assert(not pool:hasjob())

-- Asynchronous use: fill while the queue accepts, take one result at a time.
local added, done = 0, 0
while done < 50 do
   while added < 50 and pool:acceptsjob() do
      added = added + 1
      pool:addjob(function(k) return k * 2 end, function(v) done = done + 1; assert(v % 2 == 0) end, added)
   end
   assert(pool:hasjob())
   pool:dojob()
end
assert(not pool:hasjob())

-- Specific mode: a job runs on the thread it names.
pool:specific(true)
assert(pool:specific() == true)
for i = 1, 3 do
   for _ = 1, 4 do
      pool:addjob(i, function() return __threadid end, function(id) assert(id == i, id .. ' ~= ' .. i) end)
   end
   assert(pool:acceptsjob(i) ~= nil)
end
pool:synchronize()
pool:specific(false)
assert(pool:specific() == false)

-- An end callback may yield: dojob runs it as plain Lua.
local co = coroutine.wrap(function()
   pool:addjob(function() return 1 end, coroutine.yield)
   pool:addjob(function() return 2 end, coroutine.yield)
   pool:synchronize()
   return 'end'
end)
local order = {}
for _ = 1, 3 do
   order[#order + 1] = co()
end
table.sort(order, function(a, b) return tostring(a) < tostring(b) end)
assert(order[1] == 1 and order[2] == 2 and order[3] == 'end')

pool:terminate()
assert(not pool:isrunning())
pool:terminate() -- a second terminate does nothing
local ok, err = pcall(pool.addjob, pool, function() end)
assert(not ok and err:find('terminated'), err)

-- The module is the constructor too, as in torch/threads.
assert(threads.serialization() == 'threads.serialize')
local small = threads(1)
small:addjob(function() return __threadid end, function(id) assert(id == 1) end)
small:terminate()
print('ok')
