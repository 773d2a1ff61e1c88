-- Bad arguments, timeouts and closed objects, in one process:
--    th ipc/net_errors.lua
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

-- Constructors.
H.raises('a port that is not a number', function() ipc.server('127.0.0.1', 'abc') end, 'ipc.server',
   'expected a port number', "'abc'")
H.raises('a port out of range', function() ipc.server('127.0.0.1', 70000) end, 'expected a port number')
H.raises('a table as host', function() ipc.server({}) end, 'ipc.server', 'expected ([host [, port]])')
H.raises('an address not on this machine', function() ipc.server('192.0.2.1', 0) end,
   'cannot listen on 192.0.2.1:0')
local server, port = ipc.server()
H.check(type(port) == 'number' and port > 0, 'ephemeral port, got %s', tostring(port))
H.raises('a port in use', function() ipc.server('127.0.0.1', port) end, 'cannot listen on 127.0.0.1:' .. port)
local s2, p2 = ipc.server(0)
H.check(p2 > 0 and p2 ~= port, 'ipc.server(0)')
s2:close()

H.raises('no arguments', function() ipc.client() end, 'ipc.client', 'expected ([host,] port [, timeout])')
H.raises('a table as port', function() ipc.client({}) end, 'expected a port number')
H.raises('a negative timeout', function() ipc.client(port, -1) end, 'timeout must be a positive number')

-- Connecting to a closed port gives up after the timeout, naming the address.
H.raises('a closed port', function() ipc.client(p2, 0.3) end,
   'ipc.client: cannot connect to 127.0.0.1:' .. p2 .. ' within 0.3 s', 'Connection refused')
H.raises('a closed port, host given', function() ipc.client('localhost', p2, 0.2) end,
   'cannot connect to localhost:' .. p2 .. ' within 0.2 s')
H.eq(ipc.connecttimeout, 30, 'default connect timeout')
ipc.connecttimeout = 0.25
local t0 = sys.clock()
H.raises('ipc.connecttimeout', function() ipc.client(p2) end, 'within 0.25 s')
H.check(sys.clock() - t0 < 10, 'the connect timeout is honoured')
ipc.connecttimeout = 'soon'
H.raises('a bad ipc.connecttimeout', function() ipc.client(p2) end, 'ipc.connecttimeout must be a number')
ipc.connecttimeout = 30

-- Accepting: a callback is required; waiting for clients that never come times out.
H.raises('clients without a callback', function() server:clients(1, 'nope') end,
   'expected a callback function as argument #3')
H.raises('clients with a bad count', function() server:clients('x') end, 'ipc.server:clients')
H.raises('no client comes', function() server:clients(1, function() end, 0.2) end,
   'server timed out waiting for clients to connect', '0 of 1')
H.eq(ipc.accepttimeout, 300, 'default accept timeout')
ipc.accepttimeout = 0.2
H.raises('ipc.accepttimeout', function() server:clients(1, function() end) end, 'after 0.2 s')
ipc.accepttimeout = 300
H.raises('recvAny with no client', function() server:recvAny() end, 'no connected client to receive from')
server:broadcast('nobody listens')
H.eq(server:clients(function() end), 0, 'no clients')

-- Client and server in one process: the connection waits in the backlog until clients().
local client = ipc.client(port)
H.eq(server:clients(function() end), 0, 'not accepted before clients(n)')
local kept
H.raises('an error in a callback', function()
   server:clients(1, function(c)
      kept = c
      c:send('hi')
      error('from the callback')
   end)
end, 'from the callback')
H.raises('the handle after a failed callback', function() kept:recv() end, 'server client is invalid')
H.eq(client:recv(), 'hi', 'message sent before the callback failed')
H.eq(tostring(client):match('^ipc.client'), 'ipc.client', 'tostring')
H.eq(client:metatablename(), 'ipc.client', 'metatablename')

-- Closed objects.
client:close()
H.raises('a closed client', function() client:recv() end, 'ipc.client:recv', 'the client is closed')
H.raises('a closed client', function() client:netStats() end, 'the client is closed')
server:close()
H.raises('a closed server', function() server:clients(function() end) end, 'the server is closed')
H.eq(type(server:netStats()), 'table', 'netStats of a closed server (its totals)')
-- Its port is free again.
local s3 = ipc.server('127.0.0.1', port)
s3:close()

-- Collected objects close their connections: the peer sees the goodbye.
local server2, port2 = ipc.server()
local c2 = ipc.client(port2)
server2:clients(1, function() end)
c2 = nil
collectgarbage()
collectgarbage()
local msg = H.raises('recvAny from a collected client', function() server2:recvAny() end, 'remote peer disconnected')
server2 = nil
collectgarbage()
H.say('ok')
