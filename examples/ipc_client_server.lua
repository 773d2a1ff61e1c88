-- ipc_client_server.lua: ipc.server and ipc.client between processes on one machine. The server
-- accepts N clients, asks each for its name, broadcasts a tensor size, and receives one raw tensor
-- from each client into a preallocated tensor (no serialization: the bytes go straight into it).
-- It binds loopback only (pass an address to listen elsewhere).
--
-- Run:  th examples/ipc_client_server.lua [clients]          (default 3; it starts the clients)
--       th examples/ipc_client_server.lua client PORT NAME   (what it runs for each client)

local ipc = require 'libipc'

if arg[1] == 'client' then
   local client = ipc.client('127.0.0.1', tonumber(arg[2]))
   client:send({ name = arg[3] })
   local size = client:recv()
   local t = torch.FloatTensor(size):fill(#arg[3])
   client:send(t)
   client:close()
   return
end

local nclients = tonumber(arg[1]) or 3
local server, port = ipc.server('127.0.0.1')
print('listening on port ' .. port)

-- The clients are separate th processes (this script again), started through ipc.spawn.
local th = arg[0]
local script = debug.getinfo(1, 'S').source:sub(2)
local children = {}
for i = 1, nclients do
   local name = 'client' .. string.rep('x', i)
   children[i] = ipc.spawn({ file = th, args = { script, 'client', tostring(port), name } })
end

server:clients(nclients, function(client)
   local hello = client:recv()
   client:tag(hello.name)
   print('connected: ' .. hello.name)
end)
server:broadcast(1000)
local sums = {}
server:clients(function(client)
   local t = torch.FloatTensor(1000)
   client:recv(t)
   sums[client:tag()] = t:sum()
end)
for name, sum in pairs(sums) do
   print(string.format('%s sent a tensor summing to %.0f', name, sum))
end
for _, child in ipairs(children) do child:wait() end
server:close()
