-- Node life cycle, errors, copies and torch.save / torch.load.
local H = dofile(debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') .. '/helpers.lua')
local mdp = require 'mdp'
local N = mdp.nodes

local x = H.minstd(100, 8, 3)

-- dimensions and dtype from the first data
do
   local n = N.PCANode { output_dim = 3 }
   assert(n.input_dim == nil and n.dtype == nil)
   assert(n:is_trainable() and n:is_invertible() and n:is_training())
   n:train(x)
   H.eq(n.input_dim, 8, 'input_dim')
   H.eq(n.dtype, 'torch.DoubleTensor', 'dtype')
   H.raises('NodeException', 'PCANode.train: NodeException: x has dimension 5, should be 8', n.train, n, torch.rand(10, 5))
   H.raises('NodeException', 'x has rank 1, should be 2', n.train, n, torch.rand(8))
   H.raises('NodeException', 'at least one observation', n.train, n, torch.Tensor())
   n:stop_training()
   assert(not n:is_training())
   H.raises('TrainingFinishedException', 'PCANode.train: TrainingFinishedException', n.train, n, x)
   H.raises('TrainingException', 'PCANode.stop_training', n.stop_training, n)
   H.eq(n:execute(x):size(2), 3, 'output columns')
   H.eq(n(x):size(2), 3, 'node(x) executes')
   H.raises('NodeException', 'PCANode.execute', n.execute, n, torch.rand(4, 7))
   H.raises('NodeException', 'should be 0<y<=3', n.inverse, n, torch.rand(4, 4))
end

-- options and positional arguments
do
   local n = N.PCANode(8, 2)
   H.eq(n.input_dim, 8) H.eq(n.output_dim, 2)
   H.raises('TypeError', "unexpected argument 'outputdim'", function() return N.PCANode { outputdim = 3 } end)
   H.raises('InconsistentDimException', 'Input dim are set already (8) (4 given)', n.set_input_dim, n, 4)
   local f = N.PCANode { output_dim = 0.9 }
   H.eq(f.output_dim, nil) H.eq(f.desired_variance, 0.9)
end

-- dtypes: float input makes a float node; int input is refused by PCANode
do
   local n = N.PCANode { output_dim = 2 }
   n:train(x:float())
   H.eq(n.dtype, 'torch.FloatTensor')
   n:stop_training()
   H.eq(n:execute(x):type(), 'torch.FloatTensor', 'double input cast to the node dtype')
   local m = N.PCANode { dtype = 'float64' }
   H.eq(m.dtype, 'torch.DoubleTensor')
   H.raises('NodeException', "dtype 'torch.IntTensor' is not supported", m.set_dtype, N.PCANode(), 'int32')
   H.raises('NodeException', 'PCANode.set_dtype', function() N.PCANode():train(torch.IntTensor(5, 3):fill(1)) end)
end

-- untrainable, not invertible, stop without training, too few rows for SFA
do
   local id = N.IdentityNode()
   assert(not id:is_trainable() and not id:is_training())
   H.raises('IsNotTrainableException', 'IdentityNode.train', id.train, id, x)
   H.eq(id:execute(x):size(2), 8)
   H.raises('TrainingException', 'The node has not been trained.', function() N.PCANode():stop_training() end)
   local s2 = N.SFA2Node { output_dim = 3 }
   s2:train(x)
   assert(not s2:is_invertible())
   H.raises('IsNotInvertibleException', 'SFA2Node.inverse', s2.inverse, s2, torch.rand(3, 3))
   H.raises('TrainingException', 'Need at least 2 time samples', function() N.SFANode():train(torch.rand(1, 3)) end)
end

-- executing an untrained node trains it on x; a two-phase node stopped after one phase cannot
-- execute
do
   local n = N.PCANode { output_dim = 2 }
   local y = n:execute(x)
   assert(not n:is_training() and n.tlen == 100 and y:size(2) == 2)
   local f = N.FDANode { output_dim = 1 }
   H.eq(f:get_remaining_train_phase(), 2) assert(f:has_multiple_training_phases())
   f:train(x, 1)
   f:train(x:narrow(1, 1, 50):clone():add(1), 2)
   f:stop_training()
   H.eq(f:get_current_train_phase(), 1)
   H.raises('TrainingException', 'FDANode.stop_training: TrainingException: The node has not been trained.', f.execute, f, x)
   H.raises('TrainingException', 'number of labels should be equal', f.train, f, x, { 1, 2 })
end

-- copy, save and load
do
   local n = N.SFANode { output_dim = 2 }
   n:train(x)
   local c = n:copy()
   n:stop_training()
   assert(c:is_training(), 'the copy keeps its own state')
   c:stop_training()
   H.close('copy', c:execute(x), n:execute(x), 0)
   local path = os.tmpname()
   torch.save(path, n)
   local l = torch.load(path)
   H.eq(torch.typename(l), 'mdp.nodes.SFANode')
   H.close('save/load SFANode', l:execute(x), n:execute(x), 0)
   n:save(path)
   H.close('node:save', torch.load(path):execute(x), n:execute(x), 0)
   H.close('node:save() string', torch.deserialize(n:save()):execute(x), n:execute(x), 0)
   -- containers
   local layer = mdp.hinet.CloneLayer { node = N.PCANode { input_dim = 4, output_dim = 2 }, n_nodes = 2 }
   layer:train(x)
   layer:stop_training()
   torch.save(path, layer)
   local ll = torch.load(path)
   assert(ll.nodes[1] == ll.nodes[2] and ll.nodes[1] == ll.node, 'shared clones stay shared')
   H.close('save/load CloneLayer', ll:execute(x), layer:execute(x), 0)
   os.remove(path)
end

-- node + node, node + flow
do
   local a, b = N.PCANode { output_dim = 3 }, N.SFANode()
   local f = a + b
   H.eq(torch.typename(f), 'mdp.Flow') assert(f[1] == a and f[2] == b)
   local g = N.IdentityNode() + f
   H.eq(#g, 3) assert(g[2] ~= a, 'node + flow copies the flow')
end

-- Histogram with a filename saves its data and clears it
do
   local path = os.tmpname()
   local h = N.HistogramNode { hist_filename = path }
   h:train(x) h:train(x)
   h:stop_training()
   assert(h.data_hist == nil)
   H.eq(torch.load(path):size(1), 200)
   local h2 = N.HistogramNode { hist_fraction = 0.5 }
   h2:train(H.minstd(1000, 2, 5))
   assert(h2.data_hist:size(1) > 350 and h2.data_hist:size(1) < 650)
   os.remove(path)
end

-- Whitening output has unit variance; PCA inverse with fewer components
do
   local w = N.WhiteningNode()
   local y = w:execute(x)
   H.close('whitening variance', y:var(1), torch.ones(1, 8), 1e-10)
   local p = N.PCANode()
   local yp = p:execute(x)
   H.close('pca full reconstruction', p:inverse(yp), x, 1e-12)
   H.eq(p:inverse(yp:narrow(2, 1, 3)):size(2), 8)
end

-- Layer and FlowNode bookkeeping
do
   H.raises('InconsistentDimException', 'has no input_dim', function() return mdp.hinet.Layer { N.PCANode() } end)
   local fn = mdp.hinet.FlowNode { N.PCANode { input_dim = 8, output_dim = 4 }, N.FDANode { output_dim = 2 } }
   H.eq(fn:get_remaining_train_phase(), 3, 'FlowNode phases: 1 + 2')
   H.eq(fn.input_dim, 8)
end

print('ok')
