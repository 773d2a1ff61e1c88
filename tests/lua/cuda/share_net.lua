-- CUDA tensors and storages over ipc client/server between two th processes of this machine,
-- both ways: by CUDA IPC handle (mode 'ipc'), or through host memory (mode 'host', run with
-- LUATORCH_CUDA_IPC=0 as share.lua does). The server spawns the client. Prints `share ok`.
--    th share_net.lua server ipc|host
--    th share_net.lua client ipc|host PORT
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local ipc = require 'libipc'
local role, mode, port = arg[1], arg[2], tonumber(arg[3])
H.check(mode == 'ipc' or mode == 'host', 'second argument: ipc or host, got %s', tostring(mode))

local function filled(t)
   return t:copy(torch.range(1, t:nElement()):resize(t:size()))
end

if role == 'client' then
   local client = ipc.client('127.0.0.1', port)
   local f = filled(torch.CudaTensor(10, 20))
   -- The server's message is sent before this tensor: waiting for the tensor's acknowledgement
   -- leaves the message for recv.
   client:send(f)
   H.eq(client:recv(), 'hello', 'the message sent before the acknowledgement')
   client:send(f:t())
   client:send(torch.CudaStorage(5):fill(2.5))
   local other = cutorch.getDeviceCount() > 1 and 2 or 1
   cutorch.withDevice(other, function() client:send(filled(torch.CudaDoubleTensor(3, 4))) end)
   local l = torch.CudaLongTensor(7)
   client:recv(l)
   client:send(l:sum())
   client:send(f)
   client:send(client:netStats())
   H.eq(client:recv(), 'bye', 'last message')
   client:close()
   print('client ok')
   return
end

local server, port = ipc.server('127.0.0.1')
local p = ipc.spawn({ file = H.th, args = { H.dir .. 'share_net.lua', 'client', mode, tostring(port) } })
server:clients(1, function(c)
   c:send('hello')
   local want = filled(torch.FloatTensor(10, 20))
   -- Wrong receivers raise and leave the tensor for the right one. (Through host memory the
   -- elements come in a host tensor's frame, which a host tensor of that type takes too.)
   if mode == 'ipc' then
      H.raises('host receiver', function() c:recv(torch.FloatTensor(10, 20)) end, 'recv', 'CUDA tensor')
   end
   H.raises('wrong size', function() c:recv(torch.CudaTensor(10, 21)) end, 'recv', '10x20')
   H.raises('wrong type', function() c:recv(torch.CudaDoubleTensor(10, 20)) end, 'recv')
   local got = torch.CudaTensor(10, 20)
   c:recv(got)
   H.eq(got:float():add(-1, want):abs():max(), 0, 'a CUDA tensor')
   -- A transposed view (not contiguous) into a contiguous receiver.
   local tr = torch.CudaTensor(20, 10)
   c:recv(tr)
   H.eq(tr:float():add(-1, want:t()):abs():max(), 0, 'a transposed view')
   local s = torch.CudaStorage(5)
   c:recv(s)
   H.eq(s[1] + s[5], 5, 'a storage')
   -- From the other device (when there are two) into this one.
   local d = torch.CudaDoubleTensor(3, 4)
   c:recv(d)
   H.eq(d:sum(), 78, 'a tensor from another device')
   c:send(torch.CudaLongTensor(7):fill(9))
   H.eq(c:recv(), 63, 'the client received a CUDA tensor')
   -- A CUDA tensor where a message is expected.
   H.raises('message expected', function() c:recv() end, 'recv', mode == 'ipc' and 'CUDA tensor' or 'tensor')
   c:recv(got)
   local theirs = c:recv()
   local ours = c:netStats()
   local viaIpc = mode == 'ipc'
   H.eq(theirs.tx.cuda_ipc_bytes > 0, viaIpc, 'client sent by handle')
   H.eq(ours.rx.cuda_ipc_bytes > 0, viaIpc, 'server received by handle')
   H.eq(ours.tx.cuda_ipc_bytes > 0, viaIpc, 'server sent by handle')
   if viaIpc then
      H.eq(ours.rx.cuda_ipc_bytes, (200 + 200 + 5 + 200) * 4 + 12 * 8, 'bytes received by handle')
   end
   c:send('bye')
end)
H.eq(p:wait(), 0, 'client exit code')
server:close()
print('share ok')
