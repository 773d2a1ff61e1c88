-- CUDA tensors to and from a parallel child forked through ssh, which parallel treats as another
-- machine: no CUDA IPC handle, the elements go through host memory and land on the receiver's
-- device. tests/cutorch.rs runs it against a private sshd on 127.0.0.1, with TH a wrapper that
-- starts th on the mock driver. Prints `share ok`.
--    th share_remote.lua PROTOCOL TH
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
require 'parallel'
parallel.ip = '127.0.0.1' -- the remote child connects back over loopback
local protocol, th = assert(arg[1], 'argument 1: the ssh protocol'), assert(arg[2], 'argument 2: th')

local c = parallel.fork('testhost', protocol, th)
c:exec(function()
   while true do
      local m = parallel.parent:receive()
      if m == 'stop' then break end
      local report = {
         type = torch.type(m.f),
         imported = not pcall(cutorch._ipcExport, m.f),
         storage = m.s:size(),
         viewSum = m.view:sum(),
         sum = m.f:sum(),
      }
      m.f:mul(2)
      report.aliasSum = m.view:sum()
      parallel.parent:send({ report = report, back = m.f })
   end
end)

local f = torch.CudaTensor(10, 20):copy(torch.range(1, 200):resize(10, 20))
c:send({ f = f, s = torch.CudaStorage(4):fill(1), view = f:narrow(2, 3, 5) })
f:zero() -- sent already: changes nothing there
local r = c:receive()
local rep = r.report
H.eq(rep.type, 'torch.CudaTensor', 'type on the remote side')
H.eq(rep.imported, false, 'no CUDA IPC handle between machines')
H.eq(rep.storage, 4, 'a storage')
H.eq(rep.sum, 20100, 'the tensor as sent')
H.eq(rep.aliasSum, 2 * rep.viewSum, 'a view of the same storage')
H.eq(torch.type(r.back), 'torch.CudaTensor', 'type sent back')
H.eq(r.back:sum(), 40200, 'what the remote side sent back')
H.eq(pcall(cutorch._ipcExport, r.back), true, 'what came back is memory of this process')
c:send('stop')
parallel.close()
print('share ok')
