-- Big tensors (>= 1 MiB go through shared memory to a local peer): 16M floats both ways, values
-- checked, a big storage received into a preallocated one, and no segment left in /dev/shm.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local N = 16 * 1024 * 1024
local me = H.pid()

local c = parallel.fork()
c:exec(function()
   local x = parallel.parent:receive()
   -- The child checks what it got, then sends it back doubled, plus a tensor of its own.
   local n = x:nElement()
   local ok = torch.typename(x) == 'torch.FloatTensor' and n == 16 * 1024 * 1024
      and x[1] == 1 and x[n] == n and x[12345] == 12345
   local expect = torch.range(torch.FloatTensor(), 1, n)
   ok = ok and x:equal(expect)
   parallel.parent:send(ok)
   x:mul(2)
   parallel.parent:send({ doubled = x, mine = torch.DoubleTensor(n / 8):fill(-0.5), view = x:narrow(1, 5, 10) })
   -- A big storage into a preallocated one of another size.
   local dest = torch.ByteStorage(3)
   parallel.parent:receive(dest)
   parallel.parent:send({ size = dest:size(), first = dest[1], last = dest[dest:size()] })
   parallel.parent:send(torch.IntStorage(1024 * 1024):fill(9))
end)

local x = torch.range(torch.FloatTensor(), 1, N)
H.eq(x[N], N, 'the last float is exact')
c:send(x)
H.eq(c:receive(), true, 'the child received 16M floats intact')
local r = c:receive()
H.eq(torch.typename(r.doubled), 'torch.FloatTensor', 'type of the tensor sent back')
H.eq(r.doubled:nElement(), N, 'size of the tensor sent back')
H.check(r.doubled:equal(x:clone():mul(2)), 'values of the tensor sent back (doubled)')
H.eq(r.doubled[N], 2 * N, 'last value sent back')
H.eq(r.mine:nElement(), N / 8, 'size of the child\'s own DoubleTensor')
H.eq(r.mine:min(), -0.5, 'values of the child\'s tensor (min)')
H.eq(r.mine:max(), -0.5, 'values of the child\'s tensor (max)')
H.eq(torch.pointer(r.view:storage()), torch.pointer(r.doubled:storage()), 'a view shares the big storage')
H.eq(r.view[1], 10, 'the view\'s values')
H.eq(x[N], N, 'the parent\'s tensor is untouched')
-- The received tensor is ours to change.
r.doubled:fill(0)
H.eq(r.doubled:sum(), 0, 'the received tensor is writable')

local big = torch.ByteStorage(2 * 1024 * 1024):fill(7)
big[big:size()] = 8
c:send(big)
local info = c:receive()
H.eq(info.size, 2 * 1024 * 1024, 'a big storage resized the child\'s small one')
H.eq(info.first, 7, 'a big storage\'s first value')
H.eq(info.last, 8, 'a big storage\'s last value')
local dest = torch.IntStorage(5)
local got = c:receive(dest)
H.eq(got, dest, 'a big storage received into a preallocated storage: the same object')
H.eq(dest:size(), 1024 * 1024, 'a big storage received into a preallocated storage: resized')
H.eq(dest[1] + dest[dest:size()], 18, 'a big storage received into a preallocated storage: values')

-- A big message still queued lies in a shared-memory segment named after its sender's run and pid.
c:exec(function()
   parallel.parent:send(torch.FloatTensor(1024 * 1024):fill(1))
   parallel.yield()
   parallel.yield()
end)
c:join()
H.check(#H.segments_of(c.unixid) >= 1, 'a queued 4 MiB tensor from the child is in a /dev/shm segment')
H.eq(c:receive():sum(), 1024 * 1024, 'the queued big tensor\'s values')
-- One the parent sent that the child never reads.
c:send(torch.DoubleTensor(1024 * 1024):fill(2))
H.check(#H.segments_of(me) >= 1, 'a big tensor sent to the child is in a /dev/shm segment')
c:join()

-- Once the session is closed, no segment of this run is left, read or not.
local child_pid = c.unixid
parallel.close()
H.assert_gone(child_pid, 'the child after close')
H.eq(#H.segments_of(me), 0, 'segments of the parent left after close')
H.eq(#H.segments_of(child_pid), 0, 'segments of the child left after close')
print('pids ' .. me .. ' ' .. child_pid)
H.finish()
