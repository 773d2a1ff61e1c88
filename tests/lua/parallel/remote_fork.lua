-- fork through ssh, fork's extra arguments, and data both ways (tables, strings, tensors, storages,
-- functions) with join/yield rendezvous; sync ends the remote process.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1' -- the remote child connects back over loopback

H.check(type(parallel) == 'table' and type(parallel.fork) == 'function', 'require "parallel" sets the global')
H.eq(parallel.id, 0, 'parallel.id at top level')

local args = {42, 'hello world', {a = 1, b = {'x', 'y'}}, true}
local child = parallel.fork(H.host, H.protocol, H.th, unpack(args))
H.check(type(child) == 'table', 'fork returns a table, got %s', type(child))
H.eq(child.id, 1, 'child.id')
H.eq(child.ip, H.host, 'child.ip')
H.eq(child.speed, 1, 'child.speed')
H.check(type(child.unixid) == 'number' and H.alive(child.unixid),
   'child.unixid is the live local ssh client, got %s', tostring(child.unixid))
H.eq(parallel.nchildren, 1, 'parallel.nchildren after fork')
H.eq(parallel.children[1], child, 'parallel.children[1]')

-- The child's code: only globals (a function's upvalues are rebound to the child's globals).
child:exec(function(...)
   require 'torch'
   local pid = tonumber(io.open('/proc/self/stat'):read('*l'):match('^(%d+)'))
   parallel.parent:send({id = parallel.id, parent = parallel.parent.id, args = parallel.args,
                         varargs = {...}, nvarargs = select('#', ...), pid = pid})
   while true do
      local msg = parallel.yield()
      if msg == 'break' then break end
      local x = parallel.parent:receive()
      local reply = {msg = msg, echo = x, type = torch.typename(x) or type(x)}
      if torch.isTensor(x) then
         reply.double = x:clone():mul(2)
         reply.sum = x:sum()
      elseif type(x) == 'function' then
         reply.result = x(10)
      end
      parallel.parent:send(reply)
   end
end)

local hello = child:receive()
H.check(type(hello) == 'table', 'first message is a table, got %s', type(hello))
H.eq(hello.id, 1, 'parallel.id in the child')
H.eq(hello.parent, 0, 'parallel.parent.id in the child')
H.check(type(hello.pid) == 'number' and hello.pid ~= child.unixid, 'remote pid %s', tostring(hello.pid))
H.check(H.alive(hello.pid), 'the remote th (pid %d) runs', hello.pid)
for _, got in ipairs({{hello.args, 'parallel.args'}, {hello.varargs, '... of exec'}}) do
   local t, what = got[1], got[2]
   H.check(type(t) == 'table', '%s is a table, got %s', what, type(t))
   H.eq(t[1], 42, what .. '[1]')
   H.eq(t[2], 'hello world', what .. '[2] (strings intact)')
   H.check(type(t[3]) == 'table' and t[3].a == 1 and t[3].b[2] == 'y', '%s[3] is the table', what)
   H.eq(t[4], true, what .. '[4]')
end
H.eq(hello.nvarargs, 4, 'select("#", ...) in exec')

local round = 0
local function ask(x)
   round = round + 1
   local msg = round == 1 and '' or ('round ' .. round)
   if round == 1 then child:join() else child:join(msg) end
   child:send(x)
   local reply, ok = child:receive()
   H.eq(ok, true, 'receive\'s second result')
   H.check(type(reply) == 'table', 'reply is a table, got %s', type(reply))
   H.eq(reply.msg, msg, 'the message join gave to yield')
   return reply
end

-- Tables: nesting, a cycle, shared references, every scalar kind, binary strings.
local shared = {'s'}
local t = {1, 'two', {three = 3}, flag = true, f = 1.5, neg = -7, big = 2 ^ 40, a = shared, b = shared,
           bin = '\0\1\255 bytes\n'}
t.self = t
local r = ask(t)
H.eq(r.type, 'table', 'type seen by the child')
local e = r.echo
H.eq(e[1], 1, 'echo[1]'); H.eq(e[2], 'two', 'echo[2]'); H.eq(e[3].three, 3, 'echo[3].three')
H.eq(e.flag, true, 'echo.flag'); H.eq(e.f, 1.5, 'echo.f'); H.eq(e.neg, -7, 'echo.neg')
H.eq(e.big, 2 ^ 40, 'echo.big')
H.eq(e.bin, '\0\1\255 bytes\n', 'echo.bin')
H.eq(e.self, e, 'the cycle survives both ways')
H.eq(e.a, e.b, 'shared references stay shared')
H.eq(e.a[1], 's', 'echo.a[1]')

-- Tensors of several types and shapes.
local d = torch.range(1, 12):resize(3, 4)
r = ask(d)
H.eq(r.type, 'torch.DoubleTensor', 'type seen by the child')
H.check(r.echo:equal(d), 'DoubleTensor echoed:\n%s', tostring(r.echo))
H.check(r.double:equal(d * 2), 'DoubleTensor doubled by the child:\n%s', tostring(r.double))
H.eq(r.sum, 78, 'sum computed by the child')

local f = torch.FloatTensor(5, 7):uniform(-1, 1)
r = ask(f)
H.eq(r.type, 'torch.FloatTensor', 'type seen by the child')
H.check(r.echo:equal(f), 'FloatTensor echoed exactly')

local i = torch.IntTensor({{1, -2}, {3, 2147483647}})
r = ask(i)
H.check(r.echo:equal(i), 'IntTensor echoed exactly')

local v = torch.range(1, 20):narrow(1, 5, 10) -- a view with an offset
r = ask(v)
H.check(r.echo:equal(v) and r.echo:size(1) == 10 and r.echo[1] == 5, 'a narrowed view echoed')

-- Over 1 MiB: goes over TCP to a remote child (no shared memory segment across hosts).
local big = torch.DoubleTensor(300000):uniform()
r = ask(big)
H.check(r.echo:equal(big), 'a 2.4 MB tensor echoed exactly')
H.check(math.abs(r.sum - big:sum()) < 1e-6 * big:sum(), 'sum of the big tensor: %g vs %g', r.sum, big:sum())

local s = torch.ShortStorage({5, -6, 7})
r = ask(s)
H.eq(r.type, 'torch.ShortStorage', 'type seen by the child')
H.check(r.echo:size() == 3 and r.echo[1] == 5 and r.echo[2] == -6 and r.echo[3] == 7, 'ShortStorage echoed')

-- A function with an upvalue runs in the child.
local k = 5
r = ask(function(x) return x * k + 1 end)
H.eq(r.type, 'function', 'type seen by the child')
H.eq(r.result, 51, 'the function ran in the child with its upvalue')

child:join('break')
child:sync()
H.eq(parallel.nchildren, 0, 'parallel.nchildren after sync')
H.eq(parallel.children[1], nil, 'parallel.children[1] after sync')
H.check(H.wait_gone(hello.pid, 5), 'the remote th (pid %d) is gone after sync', hello.pid)
H.check(H.wait_gone(child.unixid, 5), 'the ssh client (pid %d) is gone after sync', child.unixid)
print('ok')
