-- A child killed with SIGKILL: once its death is noticed, the shared-memory segments between it
-- and the parent are gone (both what it sent and what it was sent), while the parent still runs;
-- a storage already received from it keeps its values.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local N = 1024 * 1024
local me = H.pid()

local c = parallel.fork()
c:exec(function()
   parallel.parent:send(torch.FloatTensor(1024 * 1024):fill(3))
   local x = parallel.parent:receive()
   parallel.parent:send(x:sum())
   -- Waits to be killed (bounded: the parent kills it long before).
   parallel.parent:receive()
end)
local got = c:receive()
c:send(torch.DoubleTensor(N):fill(2))
H.eq(c:receive(), 2 * N, 'the child read the big tensor it was sent')
H.check(#H.segments_of(c.unixid) >= 1, 'the child\'s big tensor is in a segment')
H.check(#H.segments_of(me) >= 1, 'the parent\'s big tensor is in a segment')

local pid = c.unixid
os.execute('kill -9 ' .. pid)
H.assert_gone(pid, 'the killed child')
local ok, err = pcall(function() return c:receive() end)
H.check(not ok, 'receive from a killed child raises')
H.check(tostring(err):find('died', 1, true), 'the error says the child died: ' .. tostring(err))
H.eq(#H.segments_of(pid), 0, 'segments made by the killed child, once its death is noticed')
H.eq(#H.segments_of(me), 0, 'segments the parent made for the killed child, once its death is noticed')
H.eq(got:sum(), 3 * N, 'a tensor received from the child before it died keeps its values')
parallel.close()
H.finish()
