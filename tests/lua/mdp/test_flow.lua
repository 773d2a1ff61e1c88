-- Flow: training semantics, errors, the container operations, checkpoints, save / load.
local H = dofile(debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') .. '/helpers.lua')
local mdp = require 'mdp'
local N = mdp.nodes

local x = H.minstd(200, 6, 11)
local chunks = H.chunks(x, 50)

-- construction checks
do
   H.raises('ValueError', 'dimensions mismatch', function()
      return mdp.Flow { N.PCANode { input_dim = 6, output_dim = 3 }, N.SFANode { input_dim = 4 } }
   end)
   H.raises('TypeError', 'flow must contain mdp.Node instances', function() return mdp.Flow { N.PCANode(), 5 } end)
end

-- train: one iterable per node, data through the earlier nodes, the last phase left open
do
   local flow = mdp.Flow { N.PCANode { output_dim = 4 }, N.SFANode { output_dim = 2 } }
   H.raises('FlowException', '1 data iterables specified, 2 needed', flow.train, flow, { chunks })
   H.raises('FlowException', 'is training but instead of an iterable received None', flow.train, flow, { chunks, false })
   flow:train { chunks, chunks }
   assert(not flow[1]:is_training() and not flow[2]:is_training())
   H.eq(flow:execute(chunks):size(2), 2)
   H.eq(flow(x):size(1), 200)
   H.eq(flow:execute(x, 1):size(2), 4, 'nodenr stops after that node')
   -- single tensor: used for every node
   local f2 = mdp.Flow { N.PCANode { output_dim = 4 }, N.SFANode { output_dim = 2 } }
   f2:train(x)
   H.eq(f2[2].tlen, 200)

   -- [PCA, Identity] with (chunks, false): PCA is still training afterwards, closed by execute
   local f3 = mdp.Flow { N.PCANode { output_dim = 3 }, N.IdentityNode() }
   f3:train { chunks, mdp.None }
   assert(f3[1]:is_training(), 'the last phase is left open')
   f3:execute(x)
   assert(not f3[1]:is_training())
   -- training again: a warning, and the flow goes on
   f3:train { chunks, false }
end

-- iterator functions: fine for one phase, not repeatable for two
do
   local function iter(list)
      local i = 0
      return function()
         i = i + 1
         return list[i]
      end
   end
   local f = mdp.Flow { N.PCANode { output_dim = 3 } }
   f:train { iter(chunks) }
   H.eq(f[1].tlen, 200)
   local labels = {}
   for i = 1, #chunks do labels[i] = { chunks[i], i % 2 } end
   local g = mdp.Flow { N.FDANode { output_dim = 2 } }
   H.raises('FlowException', 'could not be repeated', g.train, g, { iter(labels) })
   local g2 = mdp.Flow { N.FDANode { output_dim = 2 } }
   H.raises('FlowException', 'Wrong number of arguments', g2.train, g2, { chunks })
   local g3 = mdp.Flow { N.PCANode { output_dim = 4 }, N.FDANode { output_dim = 2 } }
   g3:train { chunks, labels }
   H.eq(g3:execute(x):size(2), 2)
   H.raises('FlowException', 'is empty', mdp.Flow { N.PCANode() }.train, mdp.Flow { N.PCANode() }, { {} })
end

-- errors inside nodes become FlowExceptionCR with the node's error; crash recovery saves the flow
do
   local path = os.tmpname()
   local f = mdp.Flow({ N.PCANode { output_dim = 3 }, N.SFANode() }, path)
   local err = H.raises('FlowExceptionCR', '! Exception in node #2', f.train, f, { chunks, { torch.rand(1, 6) } })
   assert(mdp.is_exception(err, 'TrainingException'), 'the parent exception is a TrainingException')
   assert(mdp.parent_exception(err):find('SFANode.train: TrainingException', 1, true))
   assert(err:find(path, 1, true), 'names the crash dump')
   H.eq(torch.typename(torch.load(path)), 'mdp.Flow')
   os.remove(path)
   H.raises('FlowException', 'The execute data iterator is empty', f.execute, f, {})
end

-- inverse
do
   local f = mdp.Flow { N.PCANode(), N.WhiteningNode() }
   f:train { chunks, chunks }
   H.close('flow inverse', f:inverse(f:execute(x)), x, 1e-10)
end

-- container: indexing, slicing, concatenation, mutation
do
   local a, b, c = N.PCANode { input_dim = 6, output_dim = 4 }, N.SFANode { output_dim = 3 }, N.IdentityNode()
   local f = mdp.Flow { a, b }
   H.eq(#f, 2) assert(f[1] == a and f:get(-1) == b)
   local s = f:slice(2)
   H.eq(torch.typename(s), 'mdp.Flow') assert(#s == 1 and s[1] == b, 'slices share the nodes')
   local g = f + c
   assert(#g == 3 and g[3] == c and #f == 2)
   local h = f + mdp.Flow { c }
   assert(#h == 3)
   f:append(c)
   H.eq(#f, 3)
   assert(f:pop() == c and #f == 2)
   f:insert(1, N.IdentityNode { input_dim = 6 })
   H.eq(#f, 3)
   f:remove(1)
   assert(f[1] == a)
   assert(f:contains(b) and not f:contains(c))
   H.raises('ValueError', 'dimensions mismatch', f.set, f, 2, N.SFANode { input_dim = 7 })
   H.raises('TypeError', 'mdp.Node', f.append, f, 'x')
   f:iadd(c)
   H.eq(#f, 3)
   local n = 0
   for i, node in ipairs(f) do n = i end
   H.eq(n, 3)
   local pf = mdp.parallel.ParallelFlow { N.PCANode() }
   H.eq(torch.typename(pf + N.IdentityNode()), 'mdp.parallel.ParallelFlow', 'same class')
end

-- save, load and copy a trained flow
do
   local f = mdp.Flow { N.PCANode { output_dim = 4 }, N.SFA2Node { output_dim = 3 } }
   f:train { chunks, chunks }
   local path = os.tmpname()
   torch.save(path, f)
   local l = torch.load(path)
   H.close('flow save/load', l:execute(x), f:execute(x), 0)
   H.close('flow copy', f:copy():execute(x), f:execute(x), 0)
   os.remove(path)
end

-- CheckpointFlow
do
   local path = os.tmpname()
   local seen = {}
   local f = mdp.CheckpointFlow { N.PCANode { output_dim = 4 }, N.SFANode { output_dim = 2 } }
   f:train({ chunks, chunks }, {
      function(node) seen[1] = node:is_training() return { pca_done = true } end,
      mdp.CheckpointSaveFunction { filename = path, stop_training = true },
   })
   assert(seen[1] == true, 'the checkpoint runs with the last phase still open')
   assert(f.pca_done == true, 'a returned table is merged into the flow')
   local saved = torch.load(path)
   assert(not saved:is_training())
   H.close('checkpoint save', saved:execute(f:execute(x, 1)), f:execute(x), 0)
   os.remove(path)
end

print('ok')
