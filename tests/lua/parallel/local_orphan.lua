-- A parent that goes away without close(): tests/parallel.rs runs
--    th parallel/local_orphan.lua MODE
-- which forks two children (one idle, one running code that forked a grandchild), prints
--    pids <child> <child> <grandchild>
-- and then, by MODE: `sleep` waits to be killed (the test sends SIGKILL), `exit` ends normally,
-- `error` raises. The test then checks that all three processes are gone.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local mode = assert(arg[1], 'argument 1: sleep, exit or error')

local l = parallel.nfork(2)
l[2]:exec(function()
   local g = parallel.fork()
   g:exec(function() parallel.parent:receive() end)
   parallel.parent:send(g.unixid)
   parallel.parent:receive()
end)
local gpid = l[2]:receive()
for _, pid in ipairs({ l[1].unixid, l[2].unixid, gpid }) do
   H.check(H.alive(pid), 'process %d runs', pid)
end
io.stdout:write(string.format('pids %d %d %d\n', l[1].unixid, l[2].unixid, gpid))
io.stdout:flush()

if mode == 'sleep' then
   -- Bounded: the test kills us long before.
   require('sys').sleep(60)
   error('not killed')
elseif mode == 'error' then
   error('the parent fails on purpose')
elseif mode ~= 'exit' then
   error('unknown mode ' .. mode)
end
