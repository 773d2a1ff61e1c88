-- A stranger on the parent's socket gets no further than ZeroMQ's handshake: tests/parallel.rs runs
--    th parallel/local_stranger.lua FLAGFILE
-- which forks a child, prints
--    pids <parent>
-- and waits for FLAGFILE to exist while the test connects strangers to the parent's socket and
-- watches its memory. The child must still answer afterwards.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local flag = assert(arg[1], 'argument 1: the file to wait for')
local c = parallel.fork()
c:exec(function()
   while true do
      local x = parallel.parent:receive()
      parallel.parent:send(x + 1)
   end
end)
c:send(1)
H.eq(c:receive(), 2, 'the child answers')
io.stdout:write(string.format('pids %d\n', H.pid()))
io.stdout:flush()
local waited = 0
while not paths.filep(flag) do
   require('sys').sleep(0.05)
   waited = waited + 0.05
   if waited > 60 then error('the test did not create ' .. flag) end
end
c:send(41)
H.eq(c:receive(), 42, 'the child still answers after the strangers')
parallel.close()
H.finish()
