-- CUDA tensors through parallel's send/receive, both ways, between two th processes of this
-- machine: by CUDA IPC handle (mode 'ipc'), or through host memory (mode 'host', run with
-- LUATORCH_CUDA_IPC=0 as share.lua does). Prints `share ok`.
--    th share_parallel.lua ipc|host
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
require 'parallel'
local mode = arg[1]
H.check(mode == 'ipc' or mode == 'host', 'argument: ipc or host, got %s', tostring(mode))

local c = parallel.fork()
c:exec(function()
   -- No require 'cutorch' here: a CUDA tensor arriving loads it.
   while true do
      local m = parallel.parent:receive()
      if m == 'stop' then break end
      local report = {
         types = { torch.type(m.f), torch.type(m.d), torch.type(m.l), torch.type(m.s), torch.type(m.view) },
         sums = { m.f:sum(), m.d:sum(), m.l:sum(), m.view:sum(), m.small:sum() },
         viewSize = m.view:size():totable(),
         storageSize = m.s:size(),
         -- Memory opened from another process cannot be exported again: it tells the path taken.
         imported = not pcall(cutorch._ipcExport, m.f),
         device = m.f:getDevice(),
      }
      -- What arrived is this process's to change; views of one storage stay one storage.
      m.f:mul(2)
      report.aliasSum = m.alias:sum()
      parallel.parent:send({ report = report, back = m.f, made = torch.CudaDoubleTensor(2, 3):fill(4) })
      m = nil
      collectgarbage()
   end
end)

local f = torch.CudaTensor(10, 20):copy(torch.range(1, 200):resize(10, 20))
local msg = {
   f = f,
   d = torch.CudaDoubleTensor(5):fill(1.5),
   l = torch.CudaLongTensor(4):fill(3),
   s = torch.CudaStorage(6):fill(2),
   view = f:narrow(2, 3, 5),
   alias = f:narrow(1, 2, 3),
   small = torch.CudaTensor({ 1, 2, 3 }),
}
-- Several rounds: the sender's staging memory is released by the receiver and used again.
for round = 1, 4 do
   local fsum, viewSum, aliasSum = f:sum(), f:narrow(2, 3, 5):sum(), f:narrow(1, 2, 3):sum()
   c:send(msg)
   -- A send carries the value as it was: changing it now changes nothing there.
   f:add(1000)
   local r = c:receive()
   local rep = r.report
   H.eq(table.concat(rep.types, ' '),
      'torch.CudaTensor torch.CudaDoubleTensor torch.CudaLongTensor torch.CudaStorage torch.CudaTensor', 'types')
   H.eq(rep.sums[1], fsum, 'round ' .. round .. ': the tensor as sent')
   H.eq(rep.sums[2], 7.5, 'double tensor')
   H.eq(rep.sums[3], 12, 'long tensor')
   H.eq(rep.sums[4], viewSum, 'a view')
   H.eq(rep.sums[5], 6, 'a small tensor')
   H.eq(table.concat(rep.viewSize, 'x'), '10x5', 'view size')
   H.eq(rep.storageSize, 6, 'storage size')
   H.eq(rep.aliasSum, 2 * aliasSum, 'two views of one storage arrive as views of one storage')
   H.eq(rep.imported, mode == 'ipc', 'the received storage was opened by CUDA IPC handle')
   H.eq(rep.device, 1, 'device')
   H.eq(torch.type(r.back), 'torch.CudaTensor', 'type sent back')
   H.eq(r.back:sum(), 2 * fsum, 'the tensor the child changed, sent back')
   H.eq(not pcall(cutorch._ipcExport, r.back), mode == 'ipc', 'path of what came back')
   H.eq(r.made:sum(), 24, 'a tensor the child made')
   f:add(-1000):add(1)
end
c:send('stop')
parallel.close()
print('share ok')
