-- Strangers that connect and say nothing cost the server a bounded number of threads (at most 64
-- handshakes at once, see src/ipc/net/listener.rs), and do not lock clients out. tests/ipc_net.rs
-- starts the server, opens 300 idle connections, then runs the client.
--    th ipc/net_flood.lua server
--    th ipc/net_flood.lua client PORT
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

local function threads()
   local p = io.popen('ls /proc/' .. ipc.getpid() .. '/task | wc -l')
   local n = tonumber(p:read('*a'))
   p:close()
   return n
end

local role, port = H.role()
if role == 'server' then
   local before = threads()
   local server = H.serve()
   server:clients(1, function() end)
   local msg, client = server:recvAny()
   H.eq(msg, 'hello', 'the client message')
   -- The client came after every stranger, so all of them were accepted by now.
   local added = threads() - before
   H.check(added <= 64 + 6, 'threads the idle strangers cost: %d', added)
   client:send('bye')
   server:close()
   H.say('ok')
else
   local client = ipc.client(port)
   client:send('hello')
   H.eq(client:recv(), 'bye', 'bye')
   client:close()
   H.say('ok')
end
