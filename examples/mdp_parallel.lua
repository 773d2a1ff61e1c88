-- MDP's parallel tutorial in luatorch: a PCA + SFA2 flow trained on 10 chunks of 50x100 data
-- by two worker processes, then executed by them.
--
--    th examples/mdp_parallel.lua
local mdp = require 'mdp'
local scheduler = require 'scheduler'

torch.manualSeed(0)
local n_chunks, chunk_size = 10, 50
local x = {}
for i = 1, n_chunks do x[i] = torch.rand(chunk_size, 100) end

local function new_flow()
   return mdp.parallel.ParallelFlow {
      mdp.nodes.PCANode { input_dim = 100, output_dim = 10 },
      mdp.nodes.SFA2Node { input_dim = 10, output_dim = 10 },
   }
end

-- MDP's try/finally form: the scheduler is shut down however the training ends.
local flow = new_flow()
local s = scheduler.processes(2)
local timer = torch.Timer()
local ok, err = pcall(function()
   flow:train({ x, x }, s) -- one iterable per node; each chunk is a task
end)
s:shutdown()
if not ok then error(err, 0) end
print(('trained in %.3f s (2 processes, including their start)'):format(timer:time().real))
print(flow)

-- MDP's `with` form: scheduler.with shuts the scheduler down afterwards.
local y = scheduler.with(scheduler.processes(2), function(s)
   local flow2 = new_flow()
   flow2:train({ x, x }, s)
   return flow2:execute(x, nil, s) -- the chunks' results, in their order
end)

print('slow features:', y:size(1) .. 'x' .. y:size(2))
print('first eigenvalues of the SFA2 node:', flow[2].d:narrow(1, 1, 3):totable())
print('mean of the output (about 0):', y:mean(1):abs():max())
print('variance of the output (about 1):', y:var(1):mean())
-- the serial flow gives the same features (up to the sign of each one)
local serial = flow:execute(x)
local diff = 0
for j = 1, y:size(2) do
   local a, b = y:select(2, j), serial:select(2, j)
   local sign = torch.dot(a, b) < 0 and -1 or 1
   diff = math.max(diff, (a * sign - b):abs():max())
end
print(('parallel vs serial execution, max abs diff: %.2g'):format(diff))
