-- Only peers that know the user's secret get through (see src/ipc/net/auth.rs). tests/ipc_net.rs
-- starts the server, connects a raw socket that skips the handshake, runs the stranger (a th with
-- another LUATORCH_IPC_SECRET), then the client.
--    th ipc/net_auth.lua server
--    th ipc/net_auth.lua stranger PORT
--    th ipc/net_auth.lua client PORT
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

local role, port = arg[1], tonumber(arg[2])
if role == 'server' then
   local server = H.serve()
   server:clients(1, function() end)
   local msg, client = server:recvAny()
   H.eq(msg, 'hello', 'the client message')
   client:send('bye')
   -- Neither the raw socket nor the stranger was ever accepted.
   H.eq(server:clients(function() end), 1, 'connections accepted')
   server:close()
   H.say('ok')
elseif role == 'stranger' then
   local ok, err = pcall(ipc.client, port)
   H.check(not ok, 'a client with another secret connected')
   H.check(tostring(err):find('refused this client', 1, true), 'unexpected error: %s', tostring(err))
   H.check(tostring(err):find('LUATORCH_IPC_SECRET', 1, true), 'the error names the secret: %s', tostring(err))
   H.say('ok')
else
   local client = ipc.client(port)
   client:send('hello')
   H.eq(client:recv(), 'bye', 'the answer')
   client:close()
   H.say('ok')
end
