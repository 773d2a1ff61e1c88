-- ipc_allreduce.lua: data-parallel style averaging with the ipc allreduce tree. Every node holds a
-- "gradient" tensor per batch; tree.allReduce sums it across the nodes and the sum divided by the
-- number of contributors is the average. The nodes have different numbers of batches (node k of n
-- has n + 3 - k): a node out of data calls tree.allReduce(nil, reduce) and keeps contributing zeros until
-- every node is out, so nobody waits forever for it.
--
-- On one machine (ipc.LocalhostTree; this process is node 1 and starts the others):
--    th examples/ipc_allreduce.lua [nodes [size [base]]]       (default 4 nodes, 1e6 floats, base 2)
-- Under Slurm (ipc.SlurmTree, one node per task; the address file goes to $HOME/.torch):
--    srun -n 4 th examples/ipc_allreduce.lua slurm [size [base]]

local ipc = require 'libipc'

local tree, size
local children = {} -- the nodes this process started (local run, node 1)
if arg[1] == 'slurm' then
   size = tonumber(arg[2]) or 1e6
   tree = require 'ipc.SlurmTree'(nil, 1, tonumber(arg[3]) or 2)
elseif arg[1] == 'node' then
   -- A node started by node 1 below: node index, node count, discovery key, size, base.
   size = tonumber(arg[5])
   tree = require 'ipc.LocalhostTree'(tonumber(arg[2]), tonumber(arg[3]), arg[4], tonumber(arg[6]))
else
   local nodes = tonumber(arg[1]) or 4
   size = tonumber(arg[2]) or 1e6
   local base = tonumber(arg[3]) or 2
   local key = 'ipc_allreduce-' .. ipc.getpid()
   local th, script = arg[0], debug.getinfo(1, 'S').source:sub(2)
   for k = 2, nodes do
      children[#children + 1] = ipc.spawn({
         file = th,
         args = { script, 'node', tostring(k), tostring(nodes), key, tostring(size), tostring(base) },
      })
   end
   tree = require 'ipc.LocalhostTree'(1, nodes, key, base)
end

local me, n = tree.nodeIndex, tree.numNodes
local function add(a, b) return a:add(b) end

-- Everyone starts from the root's parameters.
local params = tree.scatter(torch.FloatTensor(size):fill(me == 1 and 1 or 0))
assert(params[1] == 1, 'scatter: every node starts from the root\'s parameters')

local batches = n + 3 - me
local grad = torch.FloatTensor(size)
local timer = torch.Timer()
for b = 1, batches do
   grad:fill(me) -- this node's "gradient" for batch b
   local sum, contributors = tree.allReduce(grad, add)
   -- the nodes still in: those with at least b batches, nodes 1 .. m
   local m = math.min(n, n + 3 - b)
   assert(sum[1] == m * (m + 1) / 2 and contributors == m,
      string.format('node %d, batch %d: sum %g from %d nodes, expected %g from %d', me, b, sum[1], contributors,
         m * (m + 1) / 2, m))
   params:add(-0.01 / contributors, sum) -- a step along the averaged gradient
   if me == 1 then -- the node with the most batches reports
      print(string.format('batch %d: %d contributors, average gradient %.2f', b, contributors, sum[1] / contributors))
   end
end
-- Out of data: contribute zeros until the nodes with more batches are done too.
local _, left = tree.allReduce(nil, add)
assert(left == 0)

if me == 1 then
   -- Every node took part in as many allreduces as node 1 has batches (n + 2).
   local steps = 2 + n
   print(string.format('%d nodes, %d allreduces of %d floats: %.2f ms each', n, steps, size,
      1000 * timer:time().real / steps))
end
tree.close()
for _, c in ipairs(children) do
   local status = c:wait()
   if status ~= 0 then error('a node failed with status ' .. tostring(status)) end
end
