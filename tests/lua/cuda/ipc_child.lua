-- The child side of ipc.lua: opens an exported storage, rebuilds the view, checks its sum, fills
-- it, and prints `child ok`.
--    th ipc_child.lua <hex handle> <offset> <bytes> <device> <type> <storageOffset> <sizes> <strides> <sum> <fill>
require 'cutorch'
local a = arg
local handle = a[1]:gsub('..', function(h) return string.char(tonumber(h, 16)) end)
local storage = cutorch._ipcImport(handle, tonumber(a[2]), tonumber(a[3]), tonumber(a[4]), a[5])
local function longs(s)
   local t = {}
   for v in s:gmatch('%d+') do t[#t + 1] = tonumber(v) end
   return torch.LongStorage(t)
end
local T = ({ Float = 'CudaTensor', Double = 'CudaDoubleTensor', Long = 'CudaLongTensor' })[a[5]]
local view = torch[T](storage, tonumber(a[6]), longs(a[7]), longs(a[8]))
local sum = view:sum()
if math.abs(sum - tonumber(a[9])) > 1e-6 * math.abs(sum) then
   io.stderr:write(string.format('child: sum %g, expected %s\n', sum, a[9]))
   os.exit(2)
end
view:fill(tonumber(a[10]))
-- The same memory opened again while the first storage still holds it (a tensor sent twice, a
-- block the sender's cache reused): the driver maps a handle once, so both share the mapping.
local again = cutorch._ipcImport(handle, tonumber(a[2]), tonumber(a[3]), tonumber(a[4]), a[5])
local view2 = torch[T](again, tonumber(a[6]), longs(a[7]), longs(a[8]))
if view2:sum() ~= view:sum() then
   io.stderr:write(string.format('child: second opening sums to %g, the first to %g\n', view2:sum(), view:sum()))
   os.exit(3)
end
cutorch.synchronize()
storage, view = nil, nil
collectgarbage()
-- One storage let go; the other still reads the memory.
if view2:sum() ~= tonumber(a[10]) * view2:nElement() then
   io.stderr:write('child: the second storage lost its memory when the first went\n')
   os.exit(4)
end
again, view2 = nil, nil
collectgarbage()
-- Closed: it opens again.
local third = cutorch._ipcImport(handle, tonumber(a[2]), tonumber(a[3]), tonumber(a[4]), a[5])
third = nil
collectgarbage()
print('child ok')
