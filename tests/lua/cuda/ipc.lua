-- CUDA IPC between two th processes on one GPU: this process exports a storage's handle, a child
-- th opens it, checks what it sees and writes into it; the write shows here (run by run_all.lua on
-- a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local ipc = require 'libipc'
local cases = {}

local function hex(s)
   return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end))
end

-- Runs the child with the export of `t` (a view: its storage offset and size ride along);
-- returns its exit code and output.
local function child(t, fillWith)
   local handle, offset, bytes, device, etype = cutorch._ipcExport(t)
   H.eq(#handle, 64, 'handle size')
   local p = ipc.spawn({
      file = H.th,
      args = { H.dir .. 'ipc_child.lua', hex(handle), tostring(offset), tostring(bytes), tostring(device), etype,
         tostring(t:storageOffset()), table.concat(t:size():totable(), 'x'), table.concat(t:stride():totable(), 'x'),
         tostring(t:sum()), tostring(fillWith) },
   })
   local out = p:stdout('*a') or ''
   return p:wait(), out
end

function cases.sharedWithAnotherProcess()
   for _, T in ipairs { 'CudaTensor', 'CudaDoubleTensor', 'CudaLongTensor' } do
      local base = torch[T](10, 20)
      for i = 1, 10 do base[i]:fill(i) end
      cutorch.synchronize()
      local view = base:narrow(1, 3, 4)
      local code, out = child(view, -5)
      H.eq(code, 0, T .. ' child exit code; its output:\n' .. out)
      H.check(out:find('child ok', 1, true), '%s: child output %s', T, out)
      -- The child filled its view: the rows 3..6 here.
      H.eq(base[3][1], -5, T .. ' written by the child')
      H.eq(base[6][20], -5, T .. ' last element of the view')
      H.eq(base[2][20], 2, T .. ' before the view')
      H.eq(base[7][1], 7, T .. ' after the view')
   end
end

function cases.exportErrors()
   H.raises('empty', function() cutorch._ipcExport(torch.CudaStorage()) end, '_ipcExport', 'empty')
   H.raises('host', function() cutorch._ipcExport(torch.FloatStorage(3)) end, '_ipcExport')
   H.raises('bad handle', function() cutorch._ipcImport('short', 0, 4, 1, 'Float') end, '_ipcImport', '64-byte')
   H.raises('bad type', function() cutorch._ipcImport(string.rep('\0', 64), 0, 4, 1, 'Byte') end, '_ipcImport')
end

return cases
