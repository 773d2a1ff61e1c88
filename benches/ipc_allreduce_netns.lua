-- One node of benches/ipc_allreduce_netns.sh: N floats allReduced (sum, the default reduce)
-- across `nodes` th processes joined by ipc.StaticTree, each started by the script in a network
-- namespace of its own host (LUATORCH_TREE_SHM=0: other hosts, the socket path). As in
-- benches/ipc_allreduce.lua, each repetition starts with a barrier (an allReduce of a number)
-- and times one allReduce; the root prints the slowest node's median.
--    th benches/ipc_allreduce_netns.lua NODE NODES ROOTHOST ROOTPORT MYHOST FLOATS REPS
local node, nodes = tonumber(arg[1]), tonumber(arg[2])
local rootHost, rootPort, myHost = arg[3], tonumber(arg[4]), arg[5]
local n, reps = tonumber(arg[6]), tonumber(arg[7])
local ipc = require 'libipc'
ipc.connecttimeout, ipc.accepttimeout = 30, 30
local tree = require 'ipc.StaticTree'(node, nodes, myHost, node == 1 and rootPort or 0, rootHost, rootPort)
local me = tree.nodeIndex
local x = torch.FloatTensor(n)
local want = tree.numNodes * (tree.numNodes + 1) / 2
local times = {}
for r = 0, reps do
   x:fill(me)
   tree.allReduce(0)
   local t = torch.tic()
   local sum = tree.allReduce(x)
   local dt = torch.toc(t)
   assert(sum[1] == want and sum[n] == want, 'wrong sum')
   if r > 0 then times[#times + 1] = dt end
end
table.sort(times)
local median = times[math.floor(#times / 2) + 1]
local worst = tree.allReduce(median, function(a, b) return math.max(a, b) end)
if me == 1 then
   print(string.format('ours.allreduce %.9f', worst))
end
tree.close()
