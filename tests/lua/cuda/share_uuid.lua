-- A CUDA tensor by handle to a process that does not see the sender's GPU (on the mock driver: a
-- client whose GPUs have other UUIDs, MOCK_CUDA_UUID_SEED): the receiver raises naming why, and
-- tells the sender, whose send raises too; the connection goes on. Prints `share ok`.
--    th share_uuid.lua server
--    th share_uuid.lua client PORT
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local ipc = require 'libipc'

if arg[1] == 'client' then
   local client = ipc.client('127.0.0.1', tonumber(arg[2]))
   local ok, err = pcall(client.send, client, torch.CudaTensor(4):fill(1))
   H.check(not ok and err:find('the receiver could not copy the CUDA tensor', 1, true)
      and err:find('not visible', 1, true), 'send to a receiver without the GPU: %s', tostring(err))
   client:send('still connected')
   client:close()
   print('client ok')
   return
end

local env = H.environment({ 'MOCK_CUDA_UUID_SEED=7' })
local server, port = ipc.server('127.0.0.1')
local p = ipc.spawn({ file = H.th, args = { H.dir .. 'share_uuid.lua', 'client', tostring(port) }, env = env })
server:clients(1, function(c)
   -- This process sees the client's GPUs under other UUIDs than the client does.
   H.raises('GPU not visible', function() c:recv(torch.CudaTensor(4)) end, 'recv', 'not visible')
   H.eq(c:recv(), 'still connected', 'the connection goes on')
end)
local out = p:stdout('*a') or ''
H.eq(p:wait(), 0, 'client exit code; its output:\n' .. out)
server:close()
print('share ok')
