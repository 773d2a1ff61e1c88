-- The connection between a parent and its local children, on either path: tests/parallel.rs runs
--    th parallel/local_pipes.lua
-- with the fast path on (each child has a pipe of its own) and off (LUATORCH_PARALLEL_FAST=0:
-- ZeroMQ), and checks the same protocol both ways: round trips, grandchildren talking to their
-- parent and to ours, big messages both ways at once, a child killed while the parent waits in
-- receive, a child killed while it waits in receive; on the fast path also that nothing else can
-- reach the parent (no socket of its own), that each child holds only its own pipe, and that no
-- descriptor is left once the children are gone.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local fast = os.getenv('LUATORCH_PARALLEL_FAST') ~= '0'

-- The descriptors of this process that are sockets.
local function sockets()
   local n = 0
   local p = io.popen('ls -l /proc/' .. H.pid() .. '/fd 2>/dev/null')
   for line in p:lines() do
      if line:find('socket:', 1, true) then n = n + 1 end
   end
   p:close()
   return n
end

local function descriptors()
   local n = 0
   local p = io.popen('ls /proc/' .. H.pid() .. '/fd 2>/dev/null')
   for _ in p:lines() do n = n + 1 end
   p:close()
   return n
end

-- Whether this process listens on a unix socket of parallel's.
local function listening()
   local f = assert(io.open('/proc/net/unix'))
   local t = f:read('*a')
   f:close()
   return t:find('@luatorch-' .. H.pid() .. '-', 1, true) ~= nil
end

local fds_before = descriptors()

-- Round trips, a group's join, and data both ways.
local l = parallel.nfork(2)
l:exec(function()
   while parallel.yield() ~= 'stop' do
      local x = parallel.parent:receive()
      parallel.parent:send({ id = parallel.id, x = x, n = #x.list })
   end
end)
for round = 1, 50 do
   l:join()
   l:send({ round = round, list = { 1, 2, round } })
   local got = l:receive()
   for i = 1, 2 do
      H.eq(got[i].id, i, 'the reply names its child')
      H.eq(got[i].x.round, round, 'the reply carries the round')
      H.eq(got[i].n, 3, 'the table arrived whole')
   end
end
l:join('stop')

if fast then
   H.check(not listening(), 'with the fast path, the parent has no socket anyone can connect to')
end

-- Each child holds only its own pipe; a grandchild too (its parent's pipe to us is not its).
local g = parallel.fork()
g:exec(function()
   local function own_sockets()
      local f = assert(io.open('/proc/self/stat'))
      local pid = f:read('*l'):match('^(%d+)')
      f:close()
      local n = 0
      local p = io.popen('ls -l /proc/' .. pid .. '/fd 2>/dev/null')
      for line in p:lines() do
         if line:find('socket:', 1, true) then n = n + 1 end
      end
      p:close()
      return n
   end
   local mine = own_sockets()
   local kids = parallel.nfork(2)
   kids:exec(function()
      local x = parallel.parent:receive()
      local f = assert(io.open('/proc/self/stat'))
      local pid = f:read('*l'):match('^(%d+)')
      f:close()
      local n = 0
      local p = io.popen('ls -l /proc/' .. pid .. '/fd 2>/dev/null')
      for line in p:lines() do
         if line:find('socket:', 1, true) then n = n + 1 end
      end
      p:close()
      parallel.yield()
      parallel.parent:send({ x = x * 10, sockets = n })
   end)
   kids:send(parallel.id)
   kids:join()
   local got = kids:receive()
   kids:sync()
   parallel.parent:send({ mine = mine, got = got })
end)
local r = g:receive()
H.eq(r.got[1].x, 10 * g.id, 'grandchild 1 answered its parent')
H.eq(r.got[2].x, 10 * g.id, 'grandchild 2 answered its parent')
if fast then
   H.eq(r.mine, 1, 'a child\'s sockets: its pipe to us only')
   H.eq(r.got[1].sockets, 1, 'a grandchild\'s sockets: its pipe to its parent only')
   H.eq(r.got[2].sockets, 1, 'the other grandchild\'s sockets')
end
g:sync()

-- Big messages both ways at once (more than a socket holds): neither side blocks the other.
local b = parallel.fork()
b:exec(function()
   local s = string.rep('c', 8 * 1024 * 1024)
   parallel.parent:send(s)
   local x = parallel.parent:receive()
   parallel.parent:send(#x)
end)
local big = string.rep('p', 8 * 1024 * 1024)
b:send(big)
H.eq(#b:receive(), 8 * 1024 * 1024, 'the child\'s big string')
H.eq(b:receive(), #big, 'the child got ours')
b:sync()

-- A child killed while the parent waits in receive: the receive raises, naming the signal.
local k = parallel.fork()
k:exec(function()
   local f = assert(io.open('/proc/self/stat'))
   local pid = f:read('*l'):match('^(%d+)')
   f:close()
   os.execute('(sleep 0.2; kill -9 ' .. pid .. ') &')
   parallel.parent:receive()
end)
H.raises('receive from a child killed while we wait', function() k:receive() end,
   'parallel.receive: child ' .. k.id, 'signal 9')
H.raises('join on the killed child', function() k:join() end, 'signal 9')
pcall(k.sync, k)

-- A child killed while it waits in receive (SIGKILL from here): the next call raises.
local w = parallel.fork()
w:exec(function()
   parallel.parent:send('waiting')
   parallel.parent:receive()
end)
H.eq(w:receive(), 'waiting', 'the child is about to wait')
os.execute('kill -9 ' .. w.unixid)
H.raises('receive from a child killed in its receive', function() w:receive() end, 'signal 9')
H.raises('send to a child killed in its receive', function()
   -- A send may go out before the death is seen; the receive after it cannot.
   w:send('late')
   w:receive()
end, 'signal 9')
pcall(w.sync, w)

l:sync()
H.eq(parallel.nchildren, 0, 'every child is gone')
-- (ZeroMQ's context keeps its own descriptors for as long as the process runs.)
if fast then
   H.eq(sockets(), 0, 'no socket left once the children are gone')
   H.eq(descriptors(), fds_before, 'as many descriptors as before the children')
end

H.finish()
