-- A malformed frame ends only its own connection. tests/ipc_net.rs connects two raw sockets that
-- write garbage (not a frame; a message header over the size limit), then starts this script's
-- client, which sends a message.
--    th ipc/net_garbage.lua server
--    th ipc/net_garbage.lua client PORT
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

local role, port = H.role()
if role == 'server' then
   local server = H.serve()
   server:clients(3, function() end)
   local malformed, good = 0, nil
   for _ = 1, 3 do
      local ok, msg, c = pcall(server.recvAny, server)
      if ok then
         H.eq(msg, 'hello', 'the good client message')
         good = c
      else
         H.check(tostring(msg):find('malformed frame from 127.0.0.1:', 1, true), 'unexpected error: %s', msg)
         malformed = malformed + 1
      end
   end
   H.eq(malformed, 2, 'malformed connections reported')
   H.check(good ~= nil, 'the good client was heard')
   H.eq(server:clients(function() end), 1, 'connections left')
   good:send('bye')
   H.eq(good:recv(), 'done', 'the good client still works')
   server:close()
   H.say('ok')
else
   local client = ipc.client(port)
   client:send('hello')
   H.eq(client:recv(), 'bye', 'bye')
   client:send('done')
   client:close()
   H.say('ok')
end
