-- Driven by benches/ipc_allreduce.rs: N floats allReduced (sum, the default reduce) across `nodes`
-- th processes on this machine with ipc.LocalhostTree. Node 1 starts the others. Each repetition
-- starts with a barrier (an allReduce of a number) and times one allReduce; the result printed is
-- the slowest node's median, as benches/ipc_allreduce_mpi.py measures MPI. The clock is torch.tic/toc
-- (one clock read each, like Python's perf_counter): torch.Timer also reads the CPU times, whose
-- system call would count in the time measured.
--    th benches/ipc_allreduce.lua [nodes] [floats] [reps] [reduce]
-- reduce: 'default' (nil: the tree's own sum, the default) or 'add' (a Lua function, a:add(b)).
local ipc = require 'libipc'

local tree, n, reps, how
local children = {}
if arg[1] == 'node' then
   n, reps, how = tonumber(arg[5]), tonumber(arg[6]), arg[7]
   tree = require 'ipc.LocalhostTree'(tonumber(arg[2]), tonumber(arg[3]), arg[4])
else
   local nodes = tonumber(arg[1]) or 4
   n, reps, how = tonumber(arg[2]) or 16 * 1024 * 1024, tonumber(arg[3]) or 10, arg[4] or 'default'
   local key = 'bench_allreduce-' .. ipc.getpid()
   local script = debug.getinfo(1, 'S').source:sub(2)
   for k = 2, nodes do
      children[#children + 1] = ipc.spawn({
         file = arg[0],
         args = { script, 'node', tostring(k), tostring(nodes), key, tostring(n), tostring(reps), how },
      })
   end
   tree = require 'ipc.LocalhostTree'(1, nodes, key)
end

local me = tree.nodeIndex
local x = torch.FloatTensor(n)
local reduce = nil
if how == 'add' then reduce = function(a, b) return a:add(b) end end
local want = tree.numNodes * (tree.numNodes + 1) / 2
local times = {}
for r = 0, reps do
   x:fill(me)
   tree.allReduce(0) -- every node starts the round together
   local t = torch.tic()
   local sum = tree.allReduce(x, reduce)
   local dt = torch.toc(t)
   assert(sum[1] == want and sum[n] == want, 'wrong sum')
   if r > 0 then times[#times + 1] = dt end -- round 0 warms up
end
table.sort(times)
local median = times[math.floor(#times / 2) + 1]
local worst = tree.allReduce(median, function(a, b) return math.max(a, b) end)
if me == 1 then
   print(string.format('ours.allreduce %.9f', worst))
end
tree.close()
for _, c in ipairs(children) do
   assert(c:wait() == 0, 'a node failed')
end
