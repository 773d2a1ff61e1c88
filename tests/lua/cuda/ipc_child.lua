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
cutorch.synchronize()
storage = nil
view = nil
collectgarbage()
print('child ok')
