-- Our nodes against MDP 3.6's results on the same data (tests/fixtures/*.txt, recorded by
-- tests/fixtures/record_mdp.py). Eigenvalues are compared directly; eigenvectors and outputs
-- after aligning each column's sign with MDP's.
local H = dofile(debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') .. '/helpers.lua')
local mdp = require 'mdp'
local N = mdp.nodes

local TOL = 1e-9

local A = H.minstd(200, 8, 1)
local ch = H.chunks(A, 50)

local function train_node(node, chunks, ...)
   while true do
      for _, c in ipairs(chunks) do node:train(c, ...) end
      if node:get_remaining_train_phase() > 1 then
         node:stop_training()
      else
         node:stop_training()
         break
      end
   end
end

-- PCA
for case, opts in pairs {
   pca_k = { output_dim = 3 }, pca_frac = { output_dim = 0.8 }, pca_all = {},
   pca_svd = { output_dim = 3, svd = true },
} do
   local F = H.fixture(case)
   local n = N.PCANode(opts)
   train_node(n, ch)
   H.eq(n.output_dim, F.output_dim[1][1], case .. ' output_dim')
   H.close(case .. '.d', n.d, F.d, TOL)
   H.close(case .. '.v', n.v, F.v, TOL, true)
   H.close(case .. '.avg', n.avg, F.avg, 1e-14)
   H.close(case .. '.explained_variance', torch.Tensor { n.explained_variance }, F.explained_variance, TOL)
   H.close(case .. '.total_variance', torch.Tensor { n.total_variance }, F.total_variance, TOL)
   local y = n:execute(A)
   H.close(case .. '.y', y, F.y, TOL, true)
   H.close(case .. '.inverse', n:inverse(y), F.xr, TOL)
end

do
   local F = H.fixture('pca_reduce')
   local B = A:clone()
   B:select(2, 7):copy(B:select(2, 1))
   B:select(2, 8):copy(B:select(2, 2))
   local n = N.PCANode { reduce = true }
   train_node(n, H.chunks(B, 50))
   H.eq(n.output_dim, F.output_dim[1][1], 'pca_reduce output_dim')
   H.close('pca_reduce.d', n.d, F.d, TOL)
   H.close('pca_reduce.y', n:execute(B), F.y, TOL, true)
end

do
   local F = H.fixture('whitening')
   local n = N.WhiteningNode { output_dim = 4 }
   train_node(n, ch)
   local y = n:execute(A)
   H.close('whitening.d', n.d, F.d, TOL)
   H.close('whitening.v', n.v, F.v, TOL, true)
   H.close('whitening.y', y, F.y, TOL, true)
   H.close('whitening.inverse', n:inverse(y), F.xr, TOL)
end

do
   local F = H.fixture('sfa')
   local n = N.SFANode { output_dim = 3 }
   train_node(n, ch)
   local y = n:execute(A)
   H.close('sfa.d', n.d, F.d, TOL)
   H.close('sfa.sf', n.sf, F.sf, 1e-8, true)
   H.eq(n.tlen, F.tlen[1][1], 'sfa tlen')
   H.eq(n.dtlen, F.dtlen[1][1], 'sfa dtlen')
   H.close('sfa.y', y, F.y, TOL, true)
   H.close('sfa.eta', n:get_eta_values(100), F.eta, TOL)
   H.close('sfa.inverse', n:inverse(y), F.xr, 1e-8)
   local n2 = N.SFANode { output_dim = 3, include_last_sample = false }
   train_node(n2, ch)
   H.close('sfa.d (include_last_sample=false)', n2.d, F.d_nolast, TOL)
   H.eq(n2.tlen, F.tlen_nolast[1][1], 'sfa tlen without last samples')
end

do
   local F = H.fixture('sfa_pca')
   local B = A:clone()
   B:select(2, 7):copy(B:select(2, 1))
   B:select(2, 8):copy(B:select(2, 2))
   local n = N.SFANode { output_dim = 3, rank_deficit_method = 'pca' }
   train_node(n, H.chunks(B, 50))
   H.close('sfa_pca.d', n.d, F.d, 1e-8)
   H.eq(n.rank_deficit, F.rank_deficit[1][1], 'rank_deficit')
   H.close('sfa_pca.y', n:execute(B), F.y, 1e-7, true)
end

do
   local F = H.fixture('sfa2')
   local A5 = A:narrow(2, 1, 5):clone()
   local n = N.SFA2Node { output_dim = 4 }
   train_node(n, H.chunks(A5, 50))
   H.close('sfa2.d', n.d, F.d, TOL)
   H.close('sfa2.y', n:execute(A5), F.y, 1e-8, true)
   H.close('quadratic expansion', N.QuadraticExpansionNode():execute(torch.Tensor { { 1, 2, 3 } }), F.expanded, 0)
end

do
   local F = H.fixture('fda')
   local labels = F.labels[1]
   local X = A:narrow(2, 1, 4):clone()
   X:select(2, 1):add(torch.mul(labels, 0.5))
   X:select(2, 2):add(torch.mul(labels, -0.3))
   local n = N.FDANode { output_dim = 2 }
   local xc, lc = H.chunks(X, 50), H.chunks(labels:view(-1, 1), 50)
   for phase = 1, 2 do
      for i = 1, #xc do n:train(xc[i], lc[i]:view(-1)) end
      n:stop_training()
   end
   local y = n:execute(X)
   H.close('fda.v', n.v, F.v, 1e-8, true)
   H.close('fda.avg', n.avg, F.avg, 1e-14)
   H.close('fda.y', y, F.y, 1e-8, true)
   H.close('fda.inverse', n:inverse(y), F.xr, 1e-8)
   -- labels as a Lua list give the same
   local n2 = N.FDANode { output_dim = 2 }
   for phase = 1, 2 do
      for i = 1, #xc do n2:train(xc[i], lc[i]:view(-1):totable()) end
      n2:stop_training()
   end
   H.close('fda.y (labels as a list)', n2:execute(X), y, 1e-12)
end

do
   local F = H.fixture('cutoff')
   local n = N.AdaptiveCutoffNode { lower_cutoff_fraction = 0.1, upper_cutoff_fraction = 0.2 }
   train_node(n, ch)
   H.close('cutoff.lower_bounds', n.lower_bounds, F.lower_bounds, 0)
   H.close('cutoff.upper_bounds', n.upper_bounds, F.upper_bounds, 0)
   H.close('cutoff.y', n:execute(F.x2), F.y, 0)
   H.eq(n.data_hist:size(1), F.hist_rows[1][1], 'histogram rows')
end

do
   local F = H.fixture('layer')
   local n = mdp.hinet.Layer { N.PCANode { input_dim = 4, output_dim = 2 }, N.SFANode { input_dim = 4, output_dim = 2 } }
   train_node(n, ch)
   H.close('layer.y', n:execute(A), F.y, TOL, true)
end

do
   local F = H.fixture('clonelayer')
   local n = mdp.hinet.CloneLayer(N.SFANode { input_dim = 4, output_dim = 2 }, 2)
   train_node(n, ch)
   H.close('clonelayer.d', n.node.d, F.d, TOL)
   H.eq(n.node.tlen, F.tlen[1][1], 'clonelayer tlen')
   H.close('clonelayer.y', n:execute(A), F.y, 1e-8, true)
end

do
   local F = H.fixture('flownode')
   local n = mdp.hinet.FlowNode(mdp.Flow { N.PCANode { input_dim = 8, output_dim = 5 }, N.SFANode { output_dim = 3 } })
   train_node(n, ch)
   H.close('flownode.y', n:execute(A), F.y, 1e-8, true)
end

-- The tutorial flow: plain, and as a ParallelFlow with the in-process scheduler.
for _, case in ipairs { 'tutorial_minstd', 'tutorial_seed0' } do
   local F = H.fixture(case)
   local chunks
   if case == 'tutorial_minstd' then
      chunks = H.chunks(H.minstd(500, 100, 1), 50)
   else
      local rng = H.numpy_rng(0)
      chunks = {}
      for i = 1, 10 do chunks[i] = rng.random(50, 100) end
   end
   H.close(case .. ' data', chunks[1][1]:narrow(1, 1, 3), F.x_head, 0)
   for _, kind in ipairs { 'plain', 'parallel' } do
      local flow
      if kind == 'plain' then
         flow = mdp.Flow { N.PCANode { input_dim = 100, output_dim = 10 }, N.SFA2Node { input_dim = 10, output_dim = 10 } }
         flow:train { chunks, chunks }
      else
         flow = mdp.parallel.ParallelFlow { N.PCANode { input_dim = 100, output_dim = 10 },
            N.SFA2Node { input_dim = 10, output_dim = 10 } }
         local s = mdp.parallel.Scheduler()
         flow:train({ chunks, chunks }, s)
         s:shutdown()
      end
      local y = flow:execute(chunks)
      local tag = case .. ' ' .. kind
      H.close(tag .. ' pca.d', flow[1].d, F.pca_d, TOL)
      H.close(tag .. ' pca.v', flow[1].v, F.pca_v, TOL, true)
      H.close(tag .. ' pca.avg', flow[1].avg, F.pca_avg, 1e-14)
      H.close(tag .. ' pca.total_variance', torch.Tensor { flow[1].total_variance }, F.pca_total_variance, TOL)
      H.close(tag .. ' pca.explained_variance', torch.Tensor { flow[1].explained_variance }, F.pca_explained_variance, TOL)
      H.close(tag .. ' sfa2.d', flow[2].d, F.sfa_d, TOL)
      H.eq(flow[2].tlen, F.sfa_tlen[1][1], 'tlen')
      H.eq(flow[2].dtlen, F.sfa_dtlen[1][1], 'dtlen')
      H.close(tag .. ' y', y, F.y, TOL, true)
   end
end

-- The same without the FFI LAPACK path (torch.symeig and full matrix products only)
if mdp.utils.use_lapack then
   mdp.utils.use_lapack = false
   local F = H.fixture('tutorial_minstd')
   local chunks = H.chunks(H.minstd(500, 100, 1), 50)
   local flow = mdp.Flow { N.PCANode { input_dim = 100, output_dim = 10 }, N.SFA2Node { input_dim = 10, output_dim = 10 } }
   flow:train { chunks, chunks }
   H.close('no-lapack tutorial pca.d', flow[1].d, F.pca_d, TOL)
   H.close('no-lapack tutorial sfa2.d', flow[2].d, F.sfa_d, TOL)
   H.close('no-lapack tutorial y', flow:execute(chunks), F.y, TOL, true)
   local S = H.fixture('sfa')
   local n = N.SFANode { output_dim = 3 }
   train_node(n, ch)
   H.close('no-lapack sfa.y', n:execute(A), S.y, TOL, true)
   mdp.utils.use_lapack = true
end

print('max abs diff against MDP 3.6 per quantity:')
H.summary()
print('ok')
