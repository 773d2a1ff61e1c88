-- The parallel extension and ParallelFlow with the in-process, thread and process schedulers.
local dir = debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$')
local H = dofile(dir .. '/helpers.lua')
local mdp = require 'mdp'
local scheduler = require 'scheduler'
local N = mdp.nodes
local usernodes = dir .. '/usernodes.lua'
dofile(usernodes)

local X = H.minstd(500, 100, 1)
local chunks = H.chunks(X, 50)

local function tutorial(cls)
   return cls { N.PCANode { input_dim = 100, output_dim = 10 }, N.SFA2Node { input_dim = 10, output_dim = 10 } }
end

-- serial references
local ref = tutorial(mdp.Flow)
ref:train { chunks, chunks }
local ref_y = ref:execute(chunks)

local F = H.fixture('fda')
local labels = F.labels[1]
local FX = H.minstd(200, 8, 1):narrow(2, 1, 4):clone()
FX:select(2, 1):add(torch.mul(labels, 0.5))
FX:select(2, 2):add(torch.mul(labels, -0.3))
local fda_chunks = {}
for i, c in ipairs(H.chunks(FX, 50)) do fda_chunks[i] = { c, labels:narrow(1, (i - 1) * 50 + 1, 50) } end

-- the extension: fork/join exist only while it is active
do
   local p = N.PCANode()
   assert(p.fork == nil, 'no fork outside the extension')
   mdp.with_extension('parallel', function()
      assert(mdp.is_extension_active('parallel'))
      p:train(X)
      local f = p:fork()
      assert(f ~= p and f:is_training() and f._cov_mtx._cov_mtx == nil, 'a fresh fork')
      H.eq(f.input_dim, 100)
      f:train(X)
      p:join(f)
      H.eq(p._cov_mtx._tlen, 1000)
      H.raises('NotForkableParallelException', 'CountNode.fork', function() return testmdp.CountNode():fork() end)
      local s = testmdp.SumNode()
      assert(not s:use_execute_fork())
      local sf = s:fork()
      sf:train(X)
      s:join(sf)
      assert(s._train_phase_started, 'join marks the phase started')
      s:stop_training()
   end)
   assert(p.fork == nil and not mdp.is_extension_active('parallel'))
   -- join takes unset dimensions from the fork and adopts an empty parent's accumulator
   mdp.activate_extension('parallel')
   local q = N.SFANode()
   local qf = q:fork()
   qf:train(X)
   q:join(qf)
   H.eq(q.input_dim, 100)
   assert(q._cov_mtx == qf._cov_mtx, 'adopted')
   mdp.deactivate_extension('parallel')
end

local function check(kind, make)
   local function sched() return make() end
   -- tutorial flow: train and execute
   local s = sched()
   local flow = tutorial(mdp.parallel.ParallelFlow)
   mdp.parallel.with_scheduler(s, function(s)
      flow:train({ chunks, chunks }, s)
      local y = flow:execute(chunks, nil, s)
      -- the sums differ from the serial ones by rounding (joined in arrival order), which may flip
      -- an eigenvector's sign: columns are compared sign-aligned
      H.close(kind .. ' tutorial y', y, ref_y, 1e-11, true)
      H.close(kind .. ' pca.d', flow[1].d, ref[1].d, 1e-14)
      H.close(kind .. ' sfa2.d', flow[2].d, ref[2].d, 1e-12)
      H.eq(flow[2].dtlen, 490, kind .. ' dtlen (chunk boundaries kept)')
      assert(not flow[2]:is_training(), 'every phase is closed')
      H.close(kind .. ' execute nodenr', flow:execute(chunks, 1, s), ref:execute(chunks, 1), 1e-12, true)
      H.close(kind .. ' execute one tensor', flow:execute(X, nil, s), flow:execute(chunks), 1e-12)

      -- FDA: two phases, two passes
      local fda = mdp.parallel.ParallelFlow { N.FDANode { output_dim = 2 } }
      fda:train({ fda_chunks }, s)
      H.close(kind .. ' fda.y', fda:execute(FX), F.y, 1e-8, true)

      -- hinet containers inside a parallel flow
      local layer = mdp.parallel.ParallelFlow {
         mdp.hinet.Layer { N.PCANode { input_dim = 50, output_dim = 5 }, N.SFANode { input_dim = 50, output_dim = 3 } },
         mdp.hinet.CloneLayer(N.SFANode { input_dim = 4, output_dim = 2 }, 2),
         mdp.hinet.FlowNode { N.PCANode { input_dim = 4, output_dim = 3 }, N.SFANode { output_dim = 2 } },
      }
      local lref = layer:copy()
      mdp.Flow.train(lref, { chunks, chunks, chunks })
      layer:train({ chunks, chunks, chunks }, s)
      H.close(kind .. ' hinet flow', layer:execute(chunks, nil, s), lref:execute(chunks), 1e-9, true)

      -- a node without fork is trained here; user nodes reach the workers through setup
      local uf = mdp.parallel.ParallelFlow { testmdp.CountNode(), N.PCANode { output_dim = 5 }, testmdp.SumNode() }
      local setup = { setup = function() dofile(usernodes) end }
      uf:train({ chunks, chunks, chunks }, s, setup)
      H.eq(uf[1].count, 500, 'CountNode trained locally')
      H.eq(#uf[3].where, 10, 'SumNode: one fork per chunk')
      local pref = N.PCANode { output_dim = 5 }
      for _, c in ipairs(chunks) do pref:train(c) end
      H.close(kind .. ' pca after a local node', uf[2].d, pref:execute(X) and pref.d, 1e-14)
      H.close(kind .. ' user join', uf[3].total, uf[2]:execute(X):sum(1), 1e-10)
      H.close(kind .. ' user nodes execute', uf:execute(chunks, nil, s, setup), uf:execute(chunks), 0)
   end)
   assert(not s.running or s.running == false, kind .. ': with_scheduler shut the scheduler down')
end

check('Scheduler()', mdp.parallel.Scheduler)
check('threads(2)', function() return scheduler.threads(2) end)
check('processes(2)', function() return scheduler.processes(2) end)

-- one scheduler per node, each shut down after its node
do
   local s1, s2 = scheduler.threads(2), scheduler.threads(1)
   local flow = tutorial(mdp.parallel.ParallelFlow)
   flow:train({ chunks, chunks }, { s1, s2 })
   H.close('scheduler list', flow:execute(chunks), ref_y, 1e-11, true)
   assert(not pcall(s1.add_task, s1, 1, function(x) return x end), 'the first scheduler is shut down')
   assert(not pcall(s2.add_task, s2, 1, function(x) return x end), 'the second scheduler is shut down')
end

-- scheduler.with shuts down when the training fails
do
   local s = scheduler.threads(2)
   local flow = tutorial(mdp.parallel.ParallelFlow)
   local ok, err = pcall(scheduler.with, s, function(s) flow:train({ chunks, { torch.rand(1, 100) } }, s) end)
   assert(not ok and tostring(err):find('Need at least 2 time samples', 1, true), tostring(err))
   assert(not flow.is_parallel_training)
   assert(not pcall(s.add_task, s, 1, function(x) return x end), 'shut down')
   H.raises('ParallelFlowException', 'no effect', flow.train, flow, { chunks, chunks }, nil, {})
end

-- the aliases of MDP's scheduler classes
do
   local s = mdp.parallel.ThreadScheduler { n_threads = 2 }
   local flow = tutorial(mdp.parallel.ParallelFlow)
   flow:train({ chunks, chunks }, s)
   s:shutdown()
   H.close('ThreadScheduler', flow:execute(chunks), ref_y, 1e-11, true)
end

-- ParallelCheckpointFlow: a checkpoint after each node's last phase
do
   local seen = {}
   local flow = mdp.parallel.ParallelCheckpointFlow { N.PCANode { output_dim = 10 }, N.FDANode { output_dim = 2 } }
   local labelled = {}
   for i, c in ipairs(chunks) do labelled[i] = { c, i % 3 } end
   local s = mdp.parallel.Scheduler()
   flow:train({ chunks, labelled }, s, {
      function(node) seen[#seen + 1] = node:_name() .. tostring(node:is_training()) return { first = true } end,
      function(node) seen[#seen + 1] = node:_name() .. tostring(node:is_training()) end,
   })
   H.eq(table.concat(seen, ' '), 'PCANodefalse FDANodefalse', 'checkpoints after the final phases')
   assert(flow.first == true)
   H.eq(flow:execute(chunks, nil, s):size(2), 2)
end

H.summary()
print('ok')
