-- close(): prints `<parallel#000>	closing session`, ends every child (idle, waiting, sleeping, and
-- the children's own children), empties parallel.children; forking goes on afterwards.
-- parallel.print's prefix in the parent and in a child. tests/parallel.rs checks the output.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

parallel.print('from the parent', 42)

local idle = parallel.fork()
local waiting = parallel.fork()
local sleeping = parallel.fork()
local nesting = parallel.fork()
waiting:exec(function()
   parallel.print('from child', parallel.id)
   parallel.yield()
   parallel.parent:receive()
end)
waiting:join()
sleeping:exec(function()
   parallel.yield()
   require('sys').sleep(60)
end)
sleeping:join()
nesting:exec(function()
   local g = parallel.fork()
   g:exec(function()
      parallel.print('from the grandchild')
      parallel.parent:send('printed')
      parallel.parent:receive()
   end)
   parallel.parent:send({ g.unixid, g:receive() })
   parallel.parent:receive()
end)
local got = nesting:receive()
local gpid = got[1]
H.eq(got[2], 'printed', 'the grandchild printed')
H.check(H.alive(gpid), 'the grandchild runs')

local pids = { idle.unixid, waiting.unixid, sleeping.unixid, nesting.unixid, gpid }
H.eq(parallel.nchildren, 4, 'nchildren before close')
io.stdout:write('-- before close\n')
io.stdout:flush()
parallel.close()
io.stdout:write('-- after close\n')
io.stdout:flush()
H.eq(parallel.nchildren, 0, 'nchildren after close')
H.eq(#H.listed(), 0, 'children listed after close')
H.eq(parallel.children.exec, parallel.exec, 'parallel.children keeps its methods after close')
for i, pid in ipairs(pids) do
   H.assert_gone(pid, 'process ' .. i .. ' after close')
end

-- A second close with no children is harmless.
parallel.close()
H.eq(parallel.nchildren, 0, 'nchildren after a second close')

-- Forking works after close; ids keep counting.
local c = parallel.fork()
H.eq(c.id, 5, 'the id forked after close')
c:exec(function() parallel.parent:send(parallel.id) end)
H.eq(c:receive(), 5, 'a child forked after close works')
parallel.close()
H.assert_gone(c.unixid, 'the child forked after close, after the last close')

-- reset(): the children it forgets are ended (not left unreachable), ids start again at 1, and a
-- stale handle says what happened to its child.
local r = parallel.fork()
parallel.reset()
H.assert_gone(r.unixid, 'a child forgotten by reset')
H.eq(parallel.nchildren, 0, 'nchildren after reset')
H.eq(parallel.processid, 1, 'processid after reset')
H.raises('join on a child forgotten by reset', function() r:join() end, 'parallel.join: child 6', 'reset')
H.eq(parallel.fork().id, 1, 'the first id after reset')
parallel.close()

-- autoip: an interface that exists gives its address, one that does not leaves parallel.ip alone.
H.eq(parallel.autoip('lo'), '127.0.0.1', 'autoip on lo')
H.eq(parallel.autoip('no-such-if0'), '127.0.0.1', 'autoip on a missing interface keeps parallel.ip')
H.finish()
