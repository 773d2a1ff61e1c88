-- threads.Mutex, threads.Condition, threads.Thread and threads.safe.
local threads = require 'threads'

local function fails(pattern, f, ...)
   local ok, e = pcall(f, ...)
   assert(not ok, 'expected an error matching ' .. pattern)
   assert(tostring(e):find(pattern), tostring(e))
end

-- A mutex found again by its number is the same mutex.
local m = threads.Mutex()
assert(type(m:id()) == 'number' and m:id() > 0)
local again = threads.Mutex(m:id())
assert(again:id() == m:id())
m:lock()
fails('already holds the mutex', again.lock, again)
m:unlock()
fails('not locked by this thread', m.unlock, m)
fails('no live mutex has the id 12345', threads.Mutex, 12345)
fails('mutex id or nothing expected, got string', threads.Mutex, 'x')
again:free()
fails('the mutex was freed', again.lock, again)
assert(tostring(m):find('threads.Mutex'))

-- A condition: the thread can only signal once this thread waits (it needs the mutex, which the
-- wait releases), so no signal is lost.
local c = threads.Condition()
m:lock()
local t = threads.Thread(string.format([[
   local threads = require 'threads'
   local m, c = threads.Mutex(%d), threads.Condition(%d)
   m:lock()
   c:signal()
   m:unlock()
]], m:id(), c:id()))
c:wait(m)
m:unlock()
t:free()
fails('threads.Mutex expected, got number', c.wait, c, 3)
fails('Lua code expected', threads.Thread, 42)

-- broadcast wakes every waiter: three jobs wait, counted in a shared tensor under the mutex.
threads.Threads.serialization('threads.sharedserialize')
local pool = threads.Threads(3)
local waiting = torch.zeros(1)
local mid, cid = m:id(), c:id()
for _ = 1, 3 do
   pool:addjob(function()
      local th = require 'threads'
      local mm, cc = th.Mutex(mid), th.Condition(cid)
      mm:lock()
      waiting[1] = waiting[1] + 1
      cc:wait(mm)
      waiting[1] = waiting[1] - 1
      mm:unlock()
   end)
end
local sys = require 'sys'
for _ = 1, 6000 do
   m:lock()
   local n = waiting[1]
   if n == 3 then c:broadcast() end
   m:unlock()
   if n == 3 then break end
   sys.sleep(0.01)
end
pool:synchronize()
assert(waiting[1] == 0)

-- threads.safe: one call at a time across the pool; an error inside still unlocks.
local counter = torch.zeros(1)
local bump = threads.safe(function(k)
   local v = counter[1]
   for _ = 1, 100 do v = v + 0 end
   counter[1] = v + k
   if k == 0 then error('no zero') end
   return counter[1]
end)
for _ = 1, 200 do pool:addjob(function() bump(1) end) end
pool:synchronize()
assert(counter[1] == 200, counter[1])
assert(not pcall(bump, 0))
assert(bump(1) == 201)
fails('function, %[mutex%] expected', threads.safe, 3)
pool:terminate()
threads.Threads.serialization('threads.serialize')
print('ok')
