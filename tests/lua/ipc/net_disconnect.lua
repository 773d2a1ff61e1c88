-- A peer that goes away, cleanly or killed, makes the other side's calls raise "remote peer
-- disconnected" (never hang or spin). SCENARIO is one of
--    client-closes    the client closes; the server's blocked recv raises
--    server-closes    the server closes; the client's blocked recv raises
--    client-killed    the test kills the client (SIGKILL) once it printed "ready"
--    server-killed    the test kills the server once it printed "ready"
--    truncated        the server expects a tensor from a raw socket that stops half-way (tests/ipc_net.rs)
--    th ipc/net_disconnect.lua server SCENARIO
--    th ipc/net_disconnect.lua client PORT SCENARIO
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'net_helpers'
local ipc = H.ipc

local role, port = H.role()
local scenario = role == 'server' and arg[2] or arg[3]

if role == 'server' then
   local server = H.serve()
   if scenario == 'client-closes' or scenario == 'client-killed' then
      server:clients(1, function(c)
         c:send('go')
         H.raises('recv from a client that left', function() c:recv() end, 'remote peer disconnected')
         H.raises('recv again', function() c:recv() end, 'remote peer disconnected')
         H.raises('recv of a tensor', function() c:recv(torch.FloatTensor(3)) end, 'remote peer disconnected')
         H.raises('send', function() c:send('x') end, 'remote peer disconnected')
      end)
      -- The connection left the server.
      H.eq(server:clients(function() end), 0, 'clients left')
   elseif scenario == 'server-closes' then
      server:clients(1, function(c) c:send('go') end)
      server:close()
   elseif scenario == 'server-killed' then
      server:clients(1, function(c) c:send('go') end)
      H.say('ready')
      -- Waits for a message that never comes, until the test kills this process.
      server:recvAny()
      error('recvAny returned')
   elseif scenario == 'truncated' then
      server:clients(1, function(c)
         H.raises('a tensor cut short', function() c:recv(torch.FloatTensor(1000)) end, 'remote peer disconnected')
      end)
   else
      error('unknown scenario ' .. tostring(scenario))
   end
   server:close()
   H.say('ok')
else
   local client = ipc.client(port)
   H.eq(client:recv(), 'go', 'first message')
   if scenario == 'client-closes' then
      client:close()
   elseif scenario == 'client-killed' then
      H.say('ready')
      client:recv()
      error('recv returned')
   elseif scenario == 'server-closes' or scenario == 'server-killed' then
      H.raises('recv from a server that left', function() client:recv() end, 'remote peer disconnected')
      H.raises('recvAsync from a server that left', function() client:recvAsync() end, 'remote peer disconnected')
      H.raises('send to a server that left', function() client:send('x') end, 'remote peer disconnected')
      client:close()
   else
      error('unknown scenario ' .. tostring(scenario))
   end
   H.say('ok')
end
