-- send/receive both ways: nested tables with shared references and cycles, every tensor type,
-- storages received into preallocated storages, functions with upvalues, 'noblock', group
-- send/receive (keyed like the list), and receive into preallocated storages for a group.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local types = { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }

local c = parallel.fork()
-- The child echoes what it receives, after checking the structure of the first message.
c:exec(function()
   local t = parallel.parent:receive()
   local ok = t.a == t.b and t.c[1] == t.a and t.self == t and t.child.parent == t
      and t[t.child] == t and t.a[2] == 'two' and t.deep[1][1][1] == 'deep'
   parallel.parent:send(ok)
   while true do
      local v = parallel.parent:receive()
      if v == 'stop' then break end
      parallel.parent:send(v)
   end
end)

-- Shared references and cycles (through values and keys), both ways.
local shared = { 1, 'two' }
local t = { a = shared, b = shared, c = { shared }, deep = { { { 'deep' } } } }
t.self = t
t.child = { parent = t }
t[t.child] = t
c:send(t)
H.eq(c:receive(), true, 'the child saw the shared references and cycles')
c:send(t)
local back = c:receive()
H.check(back ~= t, 'a copy came back')
H.check(back.a == back.b and back.c[1] == back.a, 'shared references after the round trip')
H.check(back.self == back and back.child.parent == back and back[back.child] == back, 'cycles after the round trip')
H.eq(back.a[2], 'two', 'a shared table\'s content')

-- Plain values, strings with zero bytes, an empty table.
for _, v in ipairs({ 0, -1.25, 2 ^ 53, 'x\0y', '', true, false }) do
   c:send(v)
   H.eq(c:receive(), v, 'round trip of ' .. tostring(v))
end
c:send({})
H.eq(next((c:receive())), nil, 'round trip of {}')

-- receive returns the value and true.
c:send('pair')
local v, ok = c:receive()
H.eq(v, 'pair', 'value of receive')
H.eq(ok, true, 'second result of receive')

-- Every tensor type, contiguous and not, and a tensor sharing a storage with a storage.
for _, ty in ipairs(types) do
   local x = torch[ty .. 'Tensor'](3, 4)
   x:copy(torch.range(torch.DoubleTensor(), 1, 12):resize(3, 4))
   local tr = x:t()
   c:send({ x = x, tr = tr, s = x:storage() })
   local r = c:receive()
   H.eq(torch.typename(r.x), 'torch.' .. ty .. 'Tensor', 'type of a ' .. ty .. 'Tensor')
   H.check(r.x:isSameSizeAs(x) and r.x:equal(x), '%sTensor values', ty)
   H.eq(r.tr:size(1), 4, ty .. ' transposed size')
   H.check(r.tr:equal(tr), '%s transposed values', ty)
   H.eq(torch.pointer(r.tr:storage()), torch.pointer(r.x:storage()), ty .. ' views share their storage')
   H.eq(torch.pointer(r.s), torch.pointer(r.x:storage()), ty .. ' storage shared with the tensor')
   H.eq(torch.typename(r.s), 'torch.' .. ty .. 'Storage', ty .. ' storage type')
end
-- An empty tensor.
c:send(torch.FloatTensor())
local e = c:receive()
H.eq(torch.typename(e), 'torch.FloatTensor', 'type of an empty tensor')
H.eq(e:nElement(), 0, 'an empty tensor is empty')

-- Functions with upvalues (as torch.serialize carries them), both ways.
local k = 10
local function addk(x) return x + k end
c:send(addk)
local f = c:receive()
H.eq(type(f), 'function', 'a function came back')
H.eq(f(1), 11, 'a function with an upvalue after a round trip')
c:send('stop')

-- In the child: calling what it receives, sending back closures, receiving into storages.
c:exec(function()
   local fn = parallel.parent:receive()
   local base = 100
   parallel.parent:send({ fn(5), function(x) return x * base end })
   -- Storages received into preallocated storages of another size.
   for _, ty in ipairs({ 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }) do
      local dest = torch[ty .. 'Storage'](2)
      local got, okr = parallel.parent:receive(dest)
      parallel.parent:send({ same = got == dest, ok = okr, size = dest:size(), last = dest[dest:size()] })
   end
   -- noblock with nothing queued: nothing, or the storage and false.
   parallel.parent:send({ n = select('#', parallel.parent:receive('noblock')) })
   local st = torch.FloatStorage(1)
   local a, b = parallel.parent:receive(st, 'noblock')
   parallel.parent:send({ same = a == st, flag = b })
   -- Storages the other way, of each type.
   for i, ty in ipairs({ 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }) do
      local s = torch[ty .. 'Storage'](i + 4)
      for j = 1, i + 4 do s[j] = j end
      parallel.parent:send(s)
   end
   -- Nothing more until the parent's join; then a message sent before a rendezvous is there when
   -- that join returns.
   parallel.yield()
   parallel.parent:send('queued')
   parallel.yield()
end)
local scale = 3
c:send(function(x) return x * scale end)
local pair = c:receive()
H.eq(pair[1], 15, 'a function with an upvalue called in the child')
H.eq(pair[2](2), 200, 'a closure made in the child, with its upvalue')
for i, ty in ipairs(types) do
   local s = torch[ty .. 'Storage'](i + 4)
   for j = 1, i + 4 do s[j] = j end
   c:send(s)
   local r = c:receive()
   H.eq(r.same, true, ty .. 'Storage: receive returns the storage given')
   H.eq(r.ok, true, ty .. 'Storage: second result')
   H.eq(r.size, i + 4, ty .. 'Storage: resized to the sent size')
   H.eq(r.last, i + 4, ty .. 'Storage: values')
end
H.eq(c:receive().n, 0, 'parent:receive(\'noblock\') with nothing queued returns nothing')
local nb = c:receive()
H.eq(nb.same, true, 'parent:receive(storage, \'noblock\') returns the storage')
H.eq(nb.flag, false, 'parent:receive(storage, \'noblock\') returns false')
for i, ty in ipairs(types) do
   local dest = torch[ty .. 'Storage'](100)
   local got, okr = c:receive(dest)
   H.eq(got, dest, ty .. 'Storage into a preallocated storage: the same object')
   H.eq(okr, true, ty .. 'Storage into a preallocated storage: true')
   H.eq(dest:size(), i + 4, ty .. 'Storage resized (shrunk) to the sent size')
   for j = 1, i + 4 do H.eq(dest[j], j, ty .. 'Storage element ' .. j) end
end
-- noblock on the parent side: nothing queued returns nothing; a queued message is returned.
H.eq(select('#', c:receive('noblock')), 0, 'receive(child, \'noblock\') with nothing queued')
local st = torch.DoubleStorage(3)
local a, b = c:receive(st, 'noblock')
H.eq(a, st, 'receive(child, storage, \'noblock\') returns the storage')
H.eq(b, false, 'receive(child, storage, \'noblock\') returns false')
c:join()
c:join()
local q, qok = c:receive('noblock')
H.eq(q, 'queued', 'a message that arrived before the join, with noblock')
H.eq(qok, true, 'noblock with a message: true')
-- A received storage of the wrong type for the destination is an error.
c:exec(function()
   parallel.parent:send(torch.IntStorage(2))
   parallel.yield()
end)
H.raises('receive into a storage of another type', function() c:receive(torch.FloatStorage(2)) end,
   'parallel.receive', 'torch.FloatStorage', 'torch.IntStorage')
c:join()

-- Group send and receive on an nfork list: keyed 1..n.
local l = parallel.nfork(3)
l:exec(function()
   local v1 = parallel.parent:receive()
   parallel.parent:send({ id = parallel.id, v = v1 })
   local v2 = parallel.parent:receive()
   parallel.parent:send(torch.FloatStorage(parallel.id):fill(v2))
   -- Only the last child (id 4) has something for a noblock group receive.
   if parallel.id == 4 then parallel.parent:send('only the last') end
   parallel.yield()
   parallel.yield()
end)
l:send({ 'same for all' })
local r = l:receive()
H.eq(H.keys(r), '1,2,3', 'keys of an nfork list receive')
for i = 1, 3 do
   H.eq(r[i].id, l[i].id, 'list receive: entry ' .. i .. ' is child ' .. i .. '\'s')
   H.eq(r[i].v[1], 'same for all', 'list send reached child ' .. i)
end
-- Into preallocated storages, keyed like the list.
local dests = { torch.FloatStorage(1), torch.FloatStorage(1), torch.FloatStorage(1) }
parallel.send(l, 7)
local rs, rok = parallel.receive(l, dests)
H.eq(rok, true, 'second result of a list receive')
for i = 1, 3 do
   H.eq(rs[i], dests[i], 'list receive into storage ' .. i .. ': the same object')
   H.eq(dests[i]:size(), l[i].id, 'list receive into storage ' .. i .. ': resized')
   H.eq(dests[i][1], 7, 'list receive into storage ' .. i .. ': values')
end
l:join()
local some = l:receive('noblock')
H.eq(H.keys(some), '3', 'a noblock list receive holds only the children that had data')
H.eq(some[3], 'only the last', 'the noblock list receive\'s value')
local none = l:receive('noblock')
H.eq(type(none), 'table', 'a noblock list receive with nothing queued is a table')
H.eq(next(none), nil, 'a noblock list receive with nothing queued is empty')
l:join()

-- Group send/receive on parallel.children: keyed by child id (not 1..n once some are synced).
c:sync()
l[2]:sync()
H.eq(table.concat(H.listed(), ','), '2,4', 'children after syncing two')
parallel.children:exec(function()
   parallel.parent:send(parallel.parent:receive() .. parallel.id)
end)
parallel.children:send('id ')
r = parallel.children:receive()
H.eq(H.keys(r), '2,4', 'keys of a parallel.children receive')
H.eq(r[2], 'id 2', 'parallel.children receive, child 2')
H.eq(r[4], 'id 4', 'parallel.children receive, child 4')

parallel.children:sync()
H.eq(parallel.nchildren, 0, 'nchildren at the end')

-- Messages past the parent's frame limit (16 MiB) arrive whole: a 40 MiB string and a table of
-- three million numbers, which go in the message's first frame, not through shared memory.
local big = parallel.fork()
big:exec(function()
   local s = string.rep('ab', 20 * 1024 * 1024)
   parallel.parent:send({ s = s, n = #s })
   local t = {}
   for i = 1, 3e6 do t[i] = i end
   parallel.parent:send(t)
end)
local r40 = big:receive()
H.eq(#r40.s, 40 * 1024 * 1024, 'a 40 MiB string from a child: its length')
H.eq(r40.n, #r40.s, 'a 40 MiB string from a child: the length the child saw')
H.eq(r40.s:sub(-3), 'bab', 'a 40 MiB string from a child: its end')
local t3 = big:receive()
H.eq(#t3, 3e6, 'a table of three million numbers from a child: its length')
H.eq(t3[3e6], 3e6, 'a table of three million numbers from a child: its last value')
big:sync()
H.finish()
