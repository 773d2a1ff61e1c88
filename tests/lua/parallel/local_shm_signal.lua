-- A parent ended by a signal leaves no shared memory: tests/parallel.rs runs
--    th parallel/local_shm_signal.lua
-- which swaps big tensors with a child (and leaves one unread each way), prints
--    pids <parent> <child>
-- and waits to be ended (by SIGTERM, SIGINT, SIGHUP or SIGKILL). The test then checks that no
-- segment of either process is left once both are gone.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local N = 1024 * 1024
local c = parallel.fork()
c:exec(function()
   local x = parallel.parent:receive()
   parallel.parent:send(torch.FloatTensor(1024 * 1024):fill(x[1]))
   parallel.parent:send(torch.FloatTensor(1024 * 1024):fill(5))
   parallel.parent:receive()
   parallel.parent:receive()
end)
c:send(torch.FloatTensor(N):fill(4))
local back = c:receive()
H.eq(back[N], 4, 'the child sent a big tensor back')
c:send(torch.DoubleTensor(N):fill(6))
H.check(#H.segments_of(H.pid()) >= 1, 'the parent\'s segments exist')
H.check(#H.segments_of(c.unixid) >= 1, 'the child\'s segments exist')
io.stdout:write(string.format('pids %d %d\n', H.pid(), c.unixid))
io.stdout:flush()
require('sys').sleep(60)
error('not ended')
