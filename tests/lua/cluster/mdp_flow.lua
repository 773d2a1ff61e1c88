-- mdp on the cluster: MDP's tutorial ParallelFlow (PCA 100 -> 10, then SFA2 10 -> 10) trained and
-- executed by scheduler.cluster on the engines of a running cluster (arg[1]: the profile) gives
-- the serial flow's results; a user's node class reaches the engines through `setup`.
local mdp = require 'mdp'
local scheduler = require 'scheduler'
local N = mdp.nodes
local profile = arg[1]

require('cluster').client(profile):wait_for_engines(2, 30)

-- data: 10 chunks of 50x100, the same on every run
local gen = torch.Generator()
torch.manualSeed(gen, 7)
local chunks = {}
for i = 1, 10 do chunks[i] = torch.DoubleTensor(50, 100):uniform(gen, 0, 1) end
local X = torch.cat(chunks, 1)

local function tutorial(cls)
   return cls { N.PCANode { input_dim = 100, output_dim = 10 }, N.SFA2Node { input_dim = 10, output_dim = 10 } }
end

-- Largest difference of two matrices after each column's sign is aligned (an eigenvector's sign
-- can flip when sums are joined in another order).
local function aligned_diff(a, b)
   local worst = 0
   for j = 1, a:size(2) do
      local x, y = a:select(2, j), b:select(2, j)
      local s = x:dot(y) < 0 and -1 or 1
      worst = math.max(worst, (x - y * s):abs():max())
   end
   return worst
end

local ref = tutorial(mdp.Flow)
ref:train { chunks, chunks }
local ref_y = ref:execute(chunks)

local s = scheduler.cluster(profile)
local flow = tutorial(mdp.parallel.ParallelFlow)
mdp.parallel.with_scheduler(s, function(s)
   flow:train({ chunks, chunks }, s)
   local y = flow:execute(chunks, nil, s)
   assert(y:size(1) == 500 and y:size(2) == 10, 'one row per sample')
   local d = aligned_diff(y, ref_y)
   assert(d < 1e-9, 'cluster-trained flow differs from the serial one by ' .. d)
   assert((flow[1].d - ref[1].d):abs():max() < 1e-12, 'pca.d')
   assert(flow[2].dtlen == 490, 'the chunks stay separate time series: ' .. tostring(flow[2].dtlen))
   assert(not flow[2]:is_training(), 'every phase is closed')

   -- a node class defined by the script, made known to the engines by setup
   local code = [[
      local mdp = require 'mdp'
      local Sum = torch.class('clustertest.SumNode', 'mdp.Node')
      function Sum:__init(o) mdp.Node.__init(self, o) end
      function Sum:_train(x) self.total = (self.total or 0) + x:sum() end
      function Sum:_fork() return clustertest.SumNode() end
      function Sum:_join(other) self.total = (self.total or 0) + (other.total or 0) end
   ]]
   clustertest = {}
   assert(loadstring(code))()
   local setup = { setup = function()
      if not clustertest then
         clustertest = {}
         assert(loadstring(code))()
      end
   end }
   local uf = mdp.parallel.ParallelFlow { clustertest.SumNode() }
   uf:train({ chunks }, s, setup)
   assert(math.abs(uf[1].total - X:sum()) < 1e-8, 'user node joined: ' .. tostring(uf[1].total))
end)
print('ok')
