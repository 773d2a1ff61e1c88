-- Driven by benches/ipc_allreduce.rs: N floats allReduced (sum) across `nodes` th processes on
-- this machine with ipc.LocalhostTree. Node 1 starts the others and prints the median time of
-- `reps` allreduces, each timed from a barrier-like scatter to the end of the allReduce on node 1.
--    th benches/ipc_allreduce.lua [nodes] [floats] [reps]
local ipc = require 'libipc'

local tree, n, reps
local children = {}
if arg[1] == 'node' then
   n, reps = tonumber(arg[5]), tonumber(arg[6])
   tree = require 'ipc.LocalhostTree'(tonumber(arg[2]), tonumber(arg[3]), arg[4])
else
   local nodes = tonumber(arg[1]) or 4
   n, reps = tonumber(arg[2]) or 16 * 1024 * 1024, tonumber(arg[3]) or 10
   local key = 'bench_allreduce-' .. ipc.getpid()
   local script = debug.getinfo(1, 'S').source:sub(2)
   for k = 2, nodes do
      children[#children + 1] = ipc.spawn({
         file = arg[0],
         args = { script, 'node', tostring(k), tostring(nodes), key, tostring(n), tostring(reps) },
      })
   end
   tree = require 'ipc.LocalhostTree'(1, nodes, key)
end

local me = tree.nodeIndex
local x = torch.FloatTensor(n)
local function add(a, b) return a:add(b) end
local times = {}
for r = 0, reps do
   x:fill(me)
   tree.scatter(r) -- every node starts the round together
   local t = torch.Timer()
   local sum = tree.allReduce(x, add)
   local dt = t:time().real
   local want = tree.numNodes * (tree.numNodes + 1) / 2
   assert(sum[1] == want and sum[n] == want, 'wrong sum')
   if r > 0 then times[#times + 1] = dt end -- round 0 warms up
end
table.sort(times)
if me == 1 then
   print(string.format('ours.allreduce %.6f', times[math.floor(#times / 2) + 1]))
end
tree.close()
for _, c in ipairs(children) do
   assert(c:wait() == 0, 'a node failed')
end
