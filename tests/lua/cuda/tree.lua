-- One node of an ipc.Tree whose values are device tensors (tests/cutorch.rs starts n of these at
-- once, on the mock driver or a real GPU):
--
--    th tree.lua <node> <numNodes> <key> <expect: ipc | host>
--
-- Every hop of the tree lends the sender's device memory to the receiver through CUDA IPC, so the
-- tensors' bytes never pass through host memory or the socket; with LUATORCH_CUDA_IPC=0 they do
-- (`expect` = host), and the sums are the same. Nodes alternate between the first two devices, so
-- that hops also cross devices. Prints "ok" when every check passed.
require 'torch'
require 'cutorch'
local ipc = require 'libipc'
ipc.connecttimeout = 20
ipc.accepttimeout = 20

local node, n, key, expect = tonumber(arg[1]), tonumber(arg[2]), arg[3], arg[4]
local tri = n * (n + 1) / 2

local function check(cond, fmt, ...)
   if not cond then error(string.format('node %d: ' .. fmt, node, ...), 2) end
end

local function allEqual(t, v, what)
   local lo, hi = t:min(), t:max()
   check(lo == v and hi == v, '%s: expected every element to be %s, got [%s, %s]', what, v, lo, hi)
end

cutorch.setDevice(math.min(cutorch.getDeviceCount(), (node - 1) % 2 + 1))
local tree = require('ipc.LocalhostTree')(node, n, key)

-- The tree's byte counts, summed over this node's connections (netStats prints them).
local function stats()
   local seen = {}
   local saved = print
   print = function(s) seen[#seen + 1] = s end
   local ok, err = pcall(tree.netStats)
   print = saved
   assert(ok, err)
   local sum = { num_bytes = 0, cuda_ipc_bytes = 0 }
   for _, s in ipairs(seen) do
      for _, dir in ipairs { 'tx', 'rx' } do
         for k in pairs(sum) do sum[k] = sum[k] + (s[dir][k] or 0) end
      end
   end
   return sum
end

local before = stats()

-- Sizes: one element, a few, and one large enough that its bytes could not hide in the socket's
-- message traffic.
local devBytes = 0
for _, size in ipairs { 1, 1000, 300001 } do
   for _, T in ipairs { 'CudaTensor', 'CudaDoubleTensor' } do
      local t = torch[T](size):fill(node)
      local r = tree.allReduce(t)
      check(torch.type(r) == 'torch.' .. T, '%s: result is a %s', T, torch.type(r))
      check(r:getDevice() == t:getDevice(), '%s: result on device %d, value on %d', T, r:getDevice(), t:getDevice())
      allEqual(r, tri, T .. ' of ' .. size)
      devBytes = devBytes + size * t:elementSize()
   end
end

-- A table mixing device tensors, a view, a host tensor and a number.
local base = torch.CudaTensor(10, 20):fill(-1)
local value = { a = torch.CudaTensor(7, 3):fill(node), b = base:narrow(1, 2, 4):fill(node * 2),
   c = torch.FloatTensor(5):fill(node), d = node }
local r = tree.allReduce(value)
allEqual(r.a, tri, 'table entry a')
allEqual(base:narrow(1, 2, 4), 2 * tri, 'a view, written in place')
allEqual(base:narrow(1, 6, 5), -1, 'the rest of the view\'s storage')
allEqual(r.c, tri, 'host entry c')
check(r.d == tri, 'number entry: %s', tostring(r.d))

-- Uneven steps: node j has j steps of data, then runs out and contributes device zeros.
for i = 1, node do
   local got, c = tree.allReduce(torch.CudaTensor(100):fill(node))
   local want = 0
   for k = i, n do want = want + k end
   allEqual(got, want, 'sum at step ' .. i)
   check(c == n - i + 1, 'contributors at step %d: %s', i, tostring(c))
end
local got, c = tree.allReduce(nil)
check(torch.type(got) == 'torch.CudaTensor', 'the last sum is a %s', torch.type(got))
allEqual(got, 0, 'the last sum (all zeros)')
check(c == 0, 'contributors at the end: %s', tostring(c))

local after = stats()
local ipcBytes = after.cuda_ipc_bytes - before.cuda_ipc_bytes
local wireBytes = after.num_bytes - before.num_bytes
if n > 1 then
   if expect == 'ipc' then
      check(ipcBytes >= devBytes, 'only %d bytes went through CUDA IPC, expected at least %d', ipcBytes, devBytes)
      check(wireBytes < devBytes / 4, '%d bytes went through the socket for %d bytes of device tensors', wireBytes,
         devBytes)
   else
      check(ipcBytes == 0, '%d bytes went through CUDA IPC with it turned off', ipcBytes)
      check(wireBytes >= devBytes, 'only %d bytes went through the socket, expected at least %d', wireBytes, devBytes)
   end
end
tree.close()
print('ok')
