-- Value messages between a server and three client processes (a, b, c): tags and ids, the order
-- of clients(), handles outside their callback, every kind of value, broadcast by tag, recvAny,
-- recvAsync on both sides, refused messages, netStats, closing from either side.
--    th ipc/net_messages.lua server
--    th ipc/net_messages.lua client PORT NAME
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

torch.class('netTest.Point')
local Point = torch.getmetatable('netTest.Point')
function Point:__init(x, y) self.x, self.y = x, y end
function Point:norm1() return math.abs(self.x) + math.abs(self.y) end

local ID = { a = 30, b = 10, c = 20 }
local TAG = { a = 'x', b = 'y', c = 'x' }

local function values()
   local cyc = { name = 'cycle' }
   cyc.self = cyc
   return {
      'hello', '', 'a\0b\255', string.rep('z', 100000), 42, -3.5, 1e300, 0, true, false,
      { 1, 2, { 3, k = 'v' }, [10] = 'ten', nested = { deeper = { 'x' } } },
      cyc, netTest.Point(3, -4), function(x) return x * 2 end,
   }
end

local function check_value(i, got, want)
   if type(want) == 'function' then
      H.eq(type(got), 'function', 'value ' .. i)
      H.eq(got(21), 42, 'function value ' .. i)
   elseif torch.typename(want) == 'netTest.Point' then
      H.eq(torch.typename(got), 'netTest.Point', 'class of value ' .. i)
      H.eq(got:norm1(), 7, 'method of value ' .. i)
   elseif type(want) == 'table' and want.name == 'cycle' then
      H.check(type(got) == 'table' and got.self == got, 'value %d: the cycle should survive', i)
   else
      H.check(H.same(got, want), 'value %d differs', i)
   end
end

local role, port = H.role()

if role == 'server' then
   local server = H.serve()
   local saved
   local visited = server:clients(3, function(c)
      local hello = c:recv()
      H.eq(c:id(), 0, 'default id')
      H.eq(select('#', c:tag()), 0, 'no tag before one is set')
      c:tag(hello.tag)
      c:id(hello.id)
      H.eq(c:tag(), hello.tag, 'tag')
      H.eq(c:id(), hello.id, 'id')
      H.eq(c:address(), '127.0.0.1', 'address')
      saved = c
   end)
   H.eq(visited, 3, 'clients visited')
   H.raises('a handle after its callback', function() saved:send('x') end,
      'server client is invalid, either closed or used outside of server function scope')
   H.raises('a handle after its callback', function() return saved:id() end, 'server client is invalid')

   -- Order: ascending id, descending with invert, filtered by tag.
   local function order(...)
      local ids = {}
      local n = server:clients(function(c) ids[#ids + 1] = c:id() end, ...)
      H.eq(n, #ids, 'count returned')
      return table.concat(ids, ',')
   end
   H.eq(order(), '10,20,30', 'ascending ids')
   H.eq(order(nil, 1), '30,20,10', 'inverted')
   H.eq(order('x'), '20,30', 'tag x')
   H.eq(order('x', 1), '30,20', 'tag x inverted')
   H.eq(order('z'), '', 'a tag nobody has')
   -- clients(n, fn) with n already connected accepts nothing new.
   H.eq(server:clients(2, function() end), 3, 'clients(2) with 3 connected')

   -- Every kind of value, each client echoing it back.
   local vals = values()
   server:clients(function(c)
      for _, v in ipairs(vals) do c:send(v) end
      c:send(nil)
   end)
   server:clients(function(c)
      for i, v in ipairs(vals) do check_value(i, c:recv(), v) end
      H.eq(c:recv(), nil, 'nil echoed')
   end)

   -- Broadcast by tag, then to all.
   server:broadcast({ to = 'x' }, 'x')
   server:broadcast({ to = 'y' }, 'y')
   server:broadcast({ to = 'z' }, 'z')
   server:broadcast('all')

   -- recvAny: 5 messages from each client, each with its handle.
   local count = { a = 0, b = 0, c = 0 }
   local handles = {}
   for _ = 1, 15 do
      local msg, c = server:recvAny()
      H.eq(c:id(), ID[msg.from], 'handle of the sender')
      count[msg.from] = count[msg.from] + 1
      handles[msg.from] = c
   end
   H.eq(count.a .. count.b .. count.c, '555', 'messages per client')
   -- Handles from recvAny stay valid.
   handles.b:send('tagged')
   handles.a:send('tagged')
   handles.c:send('tagged')
   local msg, c = server:recvAny('y')
   H.eq(msg, 'b-tagged', 'recvAny with tag y')
   H.eq(c:tag(), 'y', 'tag of the handle')
   local got = {}
   for _ = 1, 2 do
      msg = server:recvAny('x')
      got[#got + 1] = msg
   end
   table.sort(got)
   H.eq(table.concat(got, ' '), 'a-tagged c-tagged', 'recvAny with tag x')

   -- Each client checks recvAsync while nothing is on its way, then asks for a pong.
   server:broadcast('async-now')
   for _ = 1, 3 do
      local m, h = server:recvAny()
      H.eq(m, 'ping-async', 'async ping')
      h:send('pong')
   end
   -- Server side recvAsync: nothing while the clients wait, then their answers.
   server:clients(function(h) H.eq(h:recvAsync(), nil, 'server recvAsync before anything was sent') end)
   server:broadcast('next')
   for _, name in ipairs({ 'a', 'b', 'c' }) do
      local v, empty = H.poll(function() return handles[name]:recvAsync() end, 20, 'server recvAsync')
      H.eq(v, name .. '-late', 'server recvAsync value')
      H.check(empty >= 0, 'count')
   end

   local stats = server:netStats()
   H.check(type(stats) == 'table' and stats.tx.num_bytes > 0 and stats.rx.num_bytes > 0, 'server netStats')
   H.eq(type(stats.rx['NETWORK MB/s']), 'number', 'netStats rate')
   H.eq(type(handles.a:netStats()), 'table', 'handle netStats')

   -- Closing c from the server: its blocked recv raises; the others go on.
   handles.c:close()
   H.raises('a closed handle', function() handles.c:send('x') end, 'server client is invalid')
   H.eq(order(), '10,30', 'ids after closing c')
   server:broadcast('bye')
   -- a and b close their ends: recvAny reports each once, then has nobody left.
   local gone = {}
   for _ = 1, 2 do
      local m = H.raises('recvAny from a client that left', function() server:recvAny() end,
         'remote peer disconnected')
      gone[#gone + 1] = m:match('id (%d+)')
   end
   table.sort(gone)
   H.eq(table.concat(gone, ','), '10,30', 'clients that left')
   H.raises('recvAny with nobody left', function() server:recvAny() end, 'no connected client')
   server:close()
   server:close()
   H.raises('a closed server', function() server:broadcast('x') end, 'the server is closed')
   H.raises('a closed server', function() server:recvAny() end, 'the server is closed')
   H.raises('a closed server', function() server:clients(1, function() end) end, 'the server is closed')
   H.say('ok')
else
   local name = arg[3]
   local client = ipc.client(port)
   -- Refused messages leave the connection usable.
   H.raises('a tensor inside a message', function() client:send({ t = torch.FloatTensor(2) }) end,
      'a message cannot hold userdata', 'torch.FloatTensor')
   H.raises('a storage deep inside a message', function() client:send({ { { torch.ByteStorage(1) } } }) end,
      'cannot hold userdata')
   H.raises('a coroutine', function() client:send(coroutine.create(function() end)) end, 'thread')
   H.raises('an oversized message', function() client:send(string.rep('x', 17 * 2 ^ 20)) end,
      'message too large')
   H.raises('nothing to send', function() client:send() end, 'expected a value')
   H.raises('recv into a table', function() client:recv({}) end, 'expected a tensor or storage')

   client:send({ name = name, tag = TAG[name], id = ID[name] })
   local vals = values()
   for i, v in ipairs(vals) do
      local got = client:recv()
      check_value(i, got, v)
      client:send(got)
   end
   H.eq(client:recv(), nil, 'nil message')
   client:send(nil)

   local first = client:recv()
   if TAG[name] == 'x' then
      H.check(H.same(first, { to = 'x' }), 'broadcast to tag x')
   else
      H.check(H.same(first, { to = 'y' }), 'broadcast to tag y')
   end
   H.eq(client:recv(), 'all', 'broadcast to all')
   for i = 1, 5 do client:send({ from = name, i = i }) end
   H.eq(client:recv(), 'tagged', 'message on a recvAny handle')
   client:send(name .. '-tagged')
   H.eq(client:recv(), 'async-now', 'go-ahead for recvAsync')

   -- Nothing is on its way until we ask: recvAsync returns nothing, without waiting.
   H.eq(select('#', client:recvAsync()), 0, 'recvAsync with nothing sent')
   client:send('ping-async')
   local pong = H.poll(function() return client:recvAsync() end, 20, 'client recvAsync')
   H.eq(pong, 'pong', 'recvAsync value')

   H.eq(client:recv(), 'next', 'next')
   client:send(name .. '-late')

   local stats = client:netStats()
   H.check(stats.tx.num_bytes > 0 and stats.rx.num_bytes > 0 and stats.tx.num_calls > 0, 'client netStats')

   if name == 'c' then
      H.raises('a connection the server closed', function() client:recv() end, 'remote peer disconnected')
      H.raises('later calls', function() client:recv() end, 'remote peer disconnected')
      H.raises('sending on it', function() client:send('x') end, 'remote peer disconnected')
   else
      H.eq(client:recv(), 'bye', 'bye')
   end
   client:close()
   client:close()
   H.raises('a closed client', function() client:send('x') end, 'the client is closed')
   H.say('ok')
end
