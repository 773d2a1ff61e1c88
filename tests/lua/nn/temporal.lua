-- The 1-D modules over sequences (frames x features, or batches of them): max pooling,
-- sub-sampling, dynamic k-max pooling, row convolution, and FeatureLPPooling across features:
-- values by hand, gradients against finite differences, batch forms, errors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local WB = { { 'weight', 'gradWeight' }, { 'bias', 'gradBias' } }

local function raises(f, pattern, what)
   local ok, err = pcall(f)
   H.check(not ok, '%s: no error', what)
   H.check(tostring(err):find(pattern, 1, true), '%s: error %q does not mention %q', what, tostring(err), pattern)
end

-- Checks that a batch of two gives each sequence's own result.
local function batchAgrees(m, seq, what)
   local batch = torch.Tensor(2, seq:size(1), seq:size(2))
   batch[1]:copy(seq)
   batch[2]:copy(seq):mul(-2)
   local out = m:forward(batch):clone()
   H.close(out[1], m:forward(seq), 1e-12, what .. ' first')
   H.close(out[2], m:forward(batch[2]), 1e-12, what .. ' second')
end

H.case('TemporalMaxPooling', function()
   local m = nn.TemporalMaxPooling(2, 1)
   local x = torch.Tensor { { 1, 10 }, { 3, 0 }, { 2, 5 }, { 5, 1 } }
   H.close(m:forward(x), torch.Tensor { { 3, 10 }, { 3, 5 }, { 5, 5 } }, 0, 'per feature')
   H.close(m.indices, torch.LongTensor { { 2, 1 }, { 2, 3 }, { 4, 3 } }, 0, 'indices: frames')
   H.close(m:backward(x, torch.ones(3, 2)), torch.Tensor { { 0, 1 }, { 2, 0 }, { 0, 2 }, { 1, 0 } }, 0, 'backward')
   H.gradients(nn.TemporalMaxPooling(3, 2), torch.Tensor(7, 3), 'TemporalMaxPooling')
   H.gradients(nn.TemporalMaxPooling(2), torch.Tensor(2, 6, 2), 'TemporalMaxPooling batch')
   batchAgrees(nn.TemporalMaxPooling(3, 1), torch.randn(6, 3), 'TemporalMaxPooling')
   raises(function() m:forward(torch.randn(1, 3)) end, 'shorter than the kernel', 'short sequence')
end)

H.case('TemporalSubSampling', function()
   local m = nn.TemporalSubSampling(2, 2, 2)
   m.weight:copy(torch.Tensor { 1, 2 })
   m.bias:copy(torch.Tensor { 0, 1 })
   local x = torch.Tensor { { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 1 }, { 5, 1 } }
   H.close(m:forward(x), torch.Tensor { { 3, 5 }, { 7, 5 } }, 0, 'weighted window sums')
   H.gradients(nn.TemporalSubSampling(3, 3, 2), torch.Tensor(7, 3), 'TemporalSubSampling', WB)
   H.gradients(nn.TemporalSubSampling(2, 2, 1), torch.Tensor(2, 4, 2), 'TemporalSubSampling batch', WB)
   raises(function() m:forward(torch.randn(5, 3)) end, 'have 3 features, expected 2', 'frame size')
end)

H.case('TemporalDynamicKMaxPooling keeps the k largest in order', function()
   local m = nn.TemporalDynamicKMaxPooling(3)
   local x = torch.Tensor { 1, 5, 2, 4, 3 }:view(5, 1)
   H.close(m:forward(x), torch.Tensor { 5, 4, 3 }:view(3, 1), 0, 'k = minK')
   local f = nn.TemporalDynamicKMaxPooling(2, 0.8)
   H.check(f:forward(x):size(1) == 4, 'k = ceil(factor * length)')
   H.gradients(nn.TemporalDynamicKMaxPooling(2, 0.5), torch.Tensor(5, 3), 'DynamicKMax')
   H.gradients(nn.TemporalDynamicKMaxPooling(3), torch.Tensor(2, 4, 2), 'DynamicKMax batch')
   raises(function() m:forward(torch.randn(2, 3)) end, 'too short', 'short sequence')
end)

H.case('TemporalRowConvolution', function()
   local m = nn.TemporalRowConvolution(2, 2)
   m.weight:copy(torch.Tensor { { { 1, 1 } }, { { 1, -1 } } })
   m.bias:zero()
   local x = torch.Tensor { { 1, 1 }, { 2, 4 }, { 3, 9 } }
   H.close(m:forward(x), torch.Tensor { { 3, -3 }, { 5, -5 } }, 0, 'each feature its own kernel')
   local ff = nn.TemporalRowConvolution(2, 2, 1, true)
   ff.weight:copy(m.weight)
   ff.bias:zero()
   H.close(ff:forward(x:t()), m.output:t(), 0, 'features first')
   H.gradients(nn.TemporalRowConvolution(3, 3, 2), torch.Tensor(7, 3), 'RowConvolution', WB)
   H.gradients(nn.TemporalRowConvolution(2, 2, 1, true):noBias(), torch.Tensor(2, 2, 5), 'RowConvolution featFirst',
      { WB[1] })
   batchAgrees(nn.TemporalRowConvolution(3, 2), torch.randn(5, 3), 'RowConvolution')
end)

H.case('FeatureLPPooling', function()
   local m = nn.FeatureLPPooling(2, 1, 2)
   H.close(m:forward(torch.Tensor { 3, 4, 0 }), torch.Tensor { 5, 4 }, 1e-12, 'norms of feature pairs')
   local b = nn.FeatureLPPooling(3, 2, 1, true)
   local x = torch.range(0, 13):view(2, 7)
   H.close(b:forward(x), torch.Tensor { { 3, 9, 15 }, { 24, 30, 36 } }, 1e-12, 'p = 1 sums, batch mode')
   local z = nn.FeatureLPPooling(2, 2, 2)
   z:forward(torch.zeros(4, 3))
   H.close(z:backward(torch.zeros(4, 3), torch.ones(2, 3)), torch.zeros(4, 3), 0, 'zero input, zero gradient')
   H.gradients(nn.FeatureLPPooling(3, 1, 2), torch.Tensor(5, 2, 2), 'FeatureLP p=2', nil, 0.5, 2)
   H.gradients(nn.FeatureLPPooling(2, 2, 4, true), torch.Tensor(2, 6, 3), 'FeatureLP p=4 batch', nil, 0.5, 2)
   local f = nn.FeatureLPPooling(2, 1, 2):float()
   H.check(torch.type(f:forward(torch.FloatTensor { 3, 4 })) == 'torch.FloatTensor', 'float')
   raises(function() nn.FeatureLPPooling(1, 1, 2) end, 'width must be within 2 to 16', 'width')
end)

H.finish()
