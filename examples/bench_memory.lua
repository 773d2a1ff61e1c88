-- Memory over long message runs, and shared memory after faults (the reliability issue's
-- benchmark): `n` messages (10^6 by default) of each kind, round trips, with the resident memory
-- of each side at the start (after 1% of the messages, once allocators have settled) and at the end:
--   parallel   parent <-> child process (parallel.fork), a small table each way
--   ipc.map    main thread <-> worker thread, through an ipc.workqueue
--   threads    threads.Threads:addjob, a job and its ending callback
--   ipc.net    ipc.server in this process <-> ipc.client in a child process
-- then the fault runs (a child killed while big tensors are in flight both ways; a parent ended by
-- SIGTERM and one by SIGKILL), with the count of luatorch segments in /dev/shm before and after.
--    th examples/bench_memory.lua [n]
require 'torch'
require 'parallel'
local ipc = require 'libipc'
local threads = require 'threads'

local n = math.floor(tonumber(arg[1]) or 1e6)
local warm = math.max(1, math.floor(n / 100))

local function rss_kib()
   local f = io.open('/proc/self/status')
   local s = f:read('*a')
   f:close()
   return tonumber(s:match('VmRSS:%s*(%d+)'))
end

local rows = {}
local function row(kind, side, a, b)
   rows[#rows + 1] = string.format('%-10s %-8s %10d %12.1f %12.1f %10d', kind, side, n, a / 1024, b / 1024, b - a)
end

-- parallel: parent and child.
do
   local c = parallel.fork()
   c:exec(function()
      local function rss_kib()
         local f = io.open('/proc/self/status')
         local s = f:read('*a')
         f:close()
         return tonumber(s:match('VmRSS:%s*(%d+)'))
      end
      local n, warm = parallel.parent:receive(), parallel.parent:receive()
      local a
      for i = 1, n do
         if i == warm then a = rss_kib() end
         local m = parallel.parent:receive()
         parallel.parent:send({ i = m.i, ok = true })
      end
      parallel.parent:send({ a, rss_kib() })
   end)
   c:send(n)
   c:send(warm)
   local a
   for i = 1, n do
      if i == warm then a = rss_kib() end
      c:send({ i = i, pad = 'x' })
      c:receive()
   end
   local child = c:receive()
   row('parallel', 'parent', a, rss_kib())
   row('parallel', 'child', child[1], child[2])
   c:sync()
end

-- ipc.map: a worker thread answering a workqueue (the process's memory is the thread's).
do
   local q = ipc.workqueue('bench_memory')
   local w = ipc.map(1, function()
      local ipc = require 'libipc'
      local q = ipc.workqueue('bench_memory')
      while true do
         local m = q:read()
         if m == nil then break end
         q:write({ i = m.i, ok = true })
      end
   end)
   local a
   for i = 1, n do
      if i == warm then a = rss_kib() end
      q:write({ i = i, pad = 'x' })
      q:read()
   end
   q:write(nil)
   w:join()
   row('ipc.map', 'process', a, rss_kib())
end

-- threads.Threads: jobs and their callbacks.
do
   local pool = threads.Threads(1)
   local a
   local done = 0
   for i = 1, n do
      if i == warm then pool:synchronize(); a = rss_kib() end
      pool:addjob(function(x) return { i = x, ok = true } end, function(r) done = done + 1 end, i)
   end
   pool:synchronize()
   pool:terminate()
   assert(done == n)
   row('threads', 'process', a, rss_kib())
end

-- ipc client/server across processes.
do
   local server, port = ipc.server('127.0.0.1')
   local c = parallel.fork()
   c:exec(function()
      local ipc = require 'libipc'
      local function rss_kib()
         local f = io.open('/proc/self/status')
         local s = f:read('*a')
         f:close()
         return tonumber(s:match('VmRSS:%s*(%d+)'))
      end
      local port, n, warm = parallel.parent:receive(), parallel.parent:receive(), parallel.parent:receive()
      local client = ipc.client('127.0.0.1', port)
      local a
      for i = 1, n do
         if i == warm then a = rss_kib() end
         client:send({ i = i, pad = 'x' })
         client:recv()
      end
      client:close()
      parallel.parent:send({ a, rss_kib() })
   end)
   c:send(port)
   c:send(n)
   c:send(warm)
   server:clients(1, function() end)
   local a
   for i = 1, n do
      if i == warm then a = rss_kib() end
      local m, client = server:recvAny()
      client:send({ i = m.i, ok = true })
   end
   local child = c:receive()
   row('ipc.net', 'server', a, rss_kib())
   row('ipc.net', 'client', child[1], child[2])
   c:sync()
   server:close()
end

print(string.format('%-10s %-8s %10s %12s %12s %10s', 'kind', 'side', 'messages', 'start_MiB', 'end_MiB', 'grew_KiB'))
for _, r in ipairs(rows) do print(r) end

-- Faults: /dev/shm before and after.
local function segments()
   local p = io.popen('ls /dev/shm 2>/dev/null | grep -c "^luatorch-"')
   local count = tonumber(p:read('*a')) or 0
   p:close()
   return count
end

print()
print(string.format('%-40s %8s %8s %8s', 'fault', 'before', 'during', 'after'))
do
   local before = segments()
   local c = parallel.fork()
   c:exec(function()
      parallel.parent:send(torch.FloatTensor(16 * 1024 * 1024):fill(1))
      parallel.parent:receive()
      parallel.parent:receive()
   end)
   local got = c:receive()
   c:send(torch.FloatTensor(16 * 1024 * 1024):fill(2))
   local during = segments()
   os.execute('kill -9 ' .. c.unixid)
   pcall(function() return c:receive() end)
   print(string.format('%-40s %8d %8d %8d', 'child killed (64 MiB each way)', before, during, segments()))
   parallel.close()
end

-- This very th.
local exe = io.popen('readlink /proc/' .. ipc.getpid() .. '/exe')
local th = exe:read('*l')
exe:close()
for _, sig in ipairs({ 'TERM', 'KILL' }) do
   local before = segments()
   -- A parent that sends a child 64 MiB, receives 64 MiB, then is ended by `sig`.
   local script = [[
      require 'parallel'
      local c = parallel.fork()
      c:exec(function()
         local x = parallel.parent:receive()
         parallel.parent:send(x)
         parallel.parent:receive()
      end)
      c:send(torch.FloatTensor(16 * 1024 * 1024):fill(3))
      c:receive()
      io.stdout:write('ready\n') io.stdout:flush()
      require('sys').sleep(60)
   ]]
   local f = io.popen(string.format('%s -e %q & echo $!', th, script))
   local pid = f:read('*l')
   local ready = f:read('*l')
   local during = segments()
   os.execute('kill -' .. sig .. ' ' .. pid)
   f:close()
   -- The children notice within a moment; wait until the count settles (bounded).
   local after
   for _ = 1, 100 do
      after = segments()
      if after <= before then break end
      require('sys').sleep(0.1)
   end
   print(string.format('%-40s %8d %8d %8d', 'parent ended by SIG' .. sig, before, during, after))
end
