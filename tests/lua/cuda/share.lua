-- CUDA tensors between processes and threads: parallel's send/receive and ipc's client/server by
-- CUDA IPC handle and, with LUATORCH_CUDA_IPC=0 (as between machines), through host memory; ipc
-- threads share them by reference (run by run_all.lua).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local ipc = require 'libipc'
local cases = {}

-- Runs `th script args...`, the host path forced when `host`; checks it ends well.
local function runScript(script, args, host)
   local all = { H.dir .. script }
   for _, a in ipairs(args) do all[#all + 1] = a end
   local p = ipc.spawn({ file = H.th, args = all, env = H.environment(host and { 'LUATORCH_CUDA_IPC=0' } or nil) })
   local out = p:stdout('*a') or ''
   local code = p:wait()
   H.check(code == 0 and out:find('share ok', 1, true), '%s %s: exit code %s, output:\n%s', script,
      table.concat(args, ' '), tostring(code), out)
end

function cases.parallelByHandle() runScript('share_parallel.lua', { 'ipc' }) end
function cases.parallelThroughHost() runScript('share_parallel.lua', { 'host' }, true) end
function cases.clientServerByHandle() runScript('share_net.lua', { 'server', 'ipc' }) end
function cases.clientServerThroughHost() runScript('share_net.lua', { 'server', 'host' }, true) end

-- Only the mock driver can give two processes different UUIDs for the same GPU.
if os.getenv('LUATORCH_CUDA_MOCK') == '1' then
   function cases.receiverWithoutTheGpu() runScript('share_uuid.lua', { 'server' }) end
end

-- Client and server in two threads of one process: no process can open its own CUDA IPC
-- handle, so the receiver copies from the sender's memory directly.
function cases.clientServerBetweenThreads()
   local server, port = ipc.server('127.0.0.1')
   local m = ipc.map(1, function(port)
      require 'cutorch'
      local ipc = require 'libipc'
      local client = ipc.client('127.0.0.1', port)
      client:send(torch.CudaTensor(3, 4):fill(2))
      local back = torch.CudaTensor(5)
      client:recv(back)
      client:send(back:sum())
      client:close()
   end, port)
   server:clients(1, function(c)
      local t = torch.CudaTensor(3, 4)
      c:recv(t)
      H.eq(t:sum(), 24, 'from a thread of this process')
      c:send(torch.CudaTensor(5):fill(3))
      H.eq(c:recv(), 15, 'to a thread of this process')
      H.eq(c:netStats().rx.cuda_ipc_bytes, 48, 'received device to device')
   end)
   m:join()
   server:close()
end

function cases.threadsShareByReference()
   local t = torch.CudaTensor(4, 5):fill(1)
   local m = ipc.map(2, function(t, i)
      t[i]:fill(i * 10)
      return torch.type(t)
   end, t)
   local a, b = m:join()
   H.eq(a, 'torch.CudaTensor', 'type in the thread')
   cutorch.synchronize()
   H.eq(t[1][1], 10, 'written by thread 1')
   H.eq(t[2][5], 20, 'written by thread 2')
   H.eq(t[3][3], 1, 'untouched')
   -- Through a workqueue too.
   local q = ipc.workqueue('share-test')
   local w = ipc.map(1, function()
      local ipc = require 'libipc'
      local q = ipc.workqueue('share-test')
      local x = q:read()
      x:add(5)
      q:write('done')
   end)
   local x = torch.CudaDoubleTensor(3):fill(1)
   q:write(x)
   H.eq(q:read(), 'done', 'worker answer')
   w:join()
   cutorch.synchronize()
   H.eq(x:sum(), 18, 'changed by the worker through the queue')
   q:close()
end

return cases
