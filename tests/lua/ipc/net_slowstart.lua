-- A client started before its server connects once the server listens (it retries).
--    th ipc/net_slowstart.lua client PORT     (started first)
--    th ipc/net_slowstart.lua server PORT
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

if arg[1] == 'server' then
   local server, port = ipc.server('127.0.0.1', tonumber(arg[2]))
   H.eq(port, tonumber(arg[2]), 'the port asked for')
   server:clients(1, function(c)
      H.eq(c:recv(), 'early', 'message from the early client')
      c:send('welcome')
   end)
   server:close()
   H.say('ok')
else
   local port = assert(tonumber(arg[2]))
   H.say('connecting')
   local client = ipc.client('127.0.0.1', port)
   client:send('early')
   H.eq(client:recv(), 'welcome', 'answer')
   client:close()
   H.say('ok')
end
