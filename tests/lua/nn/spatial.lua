-- The 2-D modules: convolutions (plain, matrix, dilated, full, connection-table, depthwise,
-- local), pooling (max, average, LP, adaptive, fractional, sub-sampling, unpooling), padding,
-- up-sampling, local normalisation, softmaxes, criterions and dropout: forward values on small
-- cases worked by hand, gradients against finite differences, batch and single forms, errors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local WB = { { 'weight', 'gradWeight' }, { 'bias', 'gradBias' } }

-- f() must fail with a message containing `pattern` (plain text).
local function raises(f, pattern, what)
   local ok, err = pcall(f)
   H.check(not ok, '%s: no error', what)
   H.check(tostring(err):find(pattern, 1, true), '%s: error %q does not mention %q', what, tostring(err), pattern)
end

-- 1..n*n as one n x n plane (1 x n x n).
local function ramp(n)
   return torch.range(1, n * n):view(1, n, n)
end

-- The module's output on a batch is its output on each sample.
local function batchAgrees(m, input, what)
   local sizes = input:size():totable()
   table.insert(sizes, 1, 2)
   local batch = torch.Tensor(torch.LongStorage(sizes))
   batch[1]:copy(input)
   batch[2]:copy(input):mul(-0.5)
   local out = m:forward(batch):clone()
   H.close(out[1], m:forward(input), 1e-10, what .. ' batch sample 1')
   H.close(out[2], m:forward(batch[2]), 1e-10, what .. ' batch sample 2')
end

H.case('SpatialConvolution, MM and Dilated: values by hand', function()
   local c = nn.SpatialConvolution(1, 1, 2, 2)
   c.weight:fill(1)
   c.bias:zero()
   H.close(c:forward(ramp(3)), torch.Tensor { { { 12, 16 }, { 24, 28 } } }, 0, 'SpatialConvolution')
   local mm = nn.SpatialConvolutionMM(1, 1, 2, 2)
   H.check(mm.weight:dim() == 2, 'SpatialConvolutionMM weight is a matrix')
   mm.weight:fill(1)
   mm.bias:fill(1)
   H.close(mm:forward(ramp(3)), torch.Tensor { { { 13, 17 }, { 25, 29 } } }, 0, 'SpatialConvolutionMM')
   local d = nn.SpatialDilatedConvolution(1, 1, 2, 2, 1, 1, 0, 0, 2, 2)
   d.weight:fill(1)
   d.bias:zero()
   H.close(d:forward(ramp(3)), torch.Tensor { { { 1 + 3 + 7 + 9 } } }, 0, 'dilated corners')
   local p = nn.SpatialConvolution(1, 1, 3, 3, 1, 1, 1, 1)
   p.weight:fill(1)
   p.bias:zero()
   H.close(p:forward(ramp(2)), torch.Tensor(1, 2, 2):fill(10), 0, 'padding keeps the size')
   H.check(tostring(d) == 'nn.SpatialDilatedConvolution(1 -> 1, 2x2, 2,2)', 'print: %s', tostring(d))
end)

H.case('SpatialConvolution, MM and Dilated: gradients, batches, errors', function()
   H.gradients(nn.SpatialConvolutionMM(2, 3, 3, 2, 2, 1, 1, 0), torch.Tensor(2, 5, 6), 'MM', WB)
   H.gradients(nn.SpatialDilatedConvolution(2, 2, 2, 3, 1, 2, 1, 1, 2, 1), torch.Tensor(2, 2, 6, 5), 'Dilated', WB)
   H.gradients(nn.SpatialConvolution(2, 2, 2, 2):noBias(), torch.Tensor(2, 4, 4), 'without bias', { WB[1] })
   batchAgrees(nn.SpatialDilatedConvolution(2, 3, 3, 3, 1, 1, 1, 1, 2, 2), torch.randn(2, 7, 6), 'Dilated')
   -- A transposed (non-contiguous) input gives the same results.
   local m = nn.SpatialConvolution(2, 3, 3, 3, 2, 2, 1, 1)
   local x = torch.randn(2, 2, 7, 6):transpose(3, 4)
   H.close(m:forward(x), m:forward(x:contiguous()), 1e-12, 'non-contiguous input')
   raises(function() m:forward(torch.randn(3, 6, 6)) end, 'has 3 planes, expected 2', 'wrong planes')
   raises(function() m:forward(torch.randn(2, 6)) end, 'nn.SpatialConvolution: input must be 3D', 'wrong dims')
   raises(function() nn.SpatialConvolution(1, 1, 5, 5):forward(torch.randn(1, 3, 3)) end, 'too small', 'small input')
end)

H.case('SpatialFullConvolution: values, sizes, {input, target}', function()
   local f = nn.SpatialFullConvolution(1, 1, 2, 2, 2, 2)
   f.weight:fill(1)
   f.bias:zero()
   local x = torch.Tensor { { { 1, 2 }, { 3, 4 } } }
   H.close(f:forward(x), torch.Tensor { { { 1, 1, 2, 2 }, { 1, 1, 2, 2 }, { 3, 3, 4, 4 }, { 3, 3, 4, 4 } } }, 0,
      'stride 2 spreads the pixels')
   local g = nn.SpatialFullConvolution(1, 1, 2, 2)
   g.weight:fill(1)
   g.bias:fill(0.5)
   H.close(g:forward(x), torch.Tensor { { { 1, 3, 2 }, { 4, 10, 6 }, { 3, 7, 4 } } }:add(0.5), 0, 'stride 1 overlaps')
   local a = nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1, 1, 1)
   H.check(a:forward(torch.randn(2, 4, 5)):isSize(torch.LongStorage { 3, 8, 10 }), 'adj adds a row and a column')
   local dual = nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1)
   dual.weight:copy(a.weight)
   dual.bias:copy(a.bias)
   local x2 = torch.randn(2, 4, 5)
   H.close(dual:forward { x2, torch.Tensor(8, 10) }, a:forward(x2), 0, '{input, target} picks adj')
   local gi = dual:backward({ x2, torch.Tensor(8, 10) }, torch.ones(3, 8, 10))
   H.close(gi[1], a:backward(x2, torch.ones(3, 8, 10)), 1e-12, 'gradient through the pair')
   H.check(gi[2]:storage():size() == 1 and gi[2]:sum() == 0, 'the target gets a zero gradient')
   raises(function() nn.SpatialFullConvolution(1, 1, 3, 3, 2, 2, 0, 0, 2, 0) end, 'adjW and adjH', 'adj too big')
end)

H.case('SpatialFullConvolution: gradients', function()
   H.gradients(nn.SpatialFullConvolution(2, 3, 3, 2, 2, 1, 1, 0, 1, 0), torch.Tensor(2, 3, 4), 'Full', WB)
   H.gradients(nn.SpatialFullConvolution(2, 2, 2, 2, 1, 1), torch.Tensor(2, 2, 3, 3), 'Full batch', WB)
end)

H.case('SpatialConvolutionMap and SpatialFullConvolutionMap', function()
   local t = nn.tables.oneToOne(2)
   local m = nn.SpatialConvolutionMap(t, 1, 1)
   m.weight[1]:fill(1)
   m.weight[2]:fill(2)
   m.bias:zero()
   local x = torch.randn(2, 3, 3)
   H.close(m:forward(x)[2], x[2] * 2, 1e-12, 'one to one')
   H.check(nn.tables.full(2, 3):size(1) == 6, 'full table')
   local r = nn.tables.random(4, 3, 2)
   H.check(r:size(1) == 6 and r:select(2, 2):max() == 3 and r:select(2, 1):max() <= 4, 'random table')
   for o = 1, 3 do
      H.check(r[2 * o - 1][1] ~= r[2 * o][1], 'random table: an output gets distinct inputs')
   end
   local rm = nn.SpatialConvolutionMap(nn.tables.random(3, 2, 2), 2, 2, 1, 2)
   H.gradients(rm, torch.Tensor(rm.nInputPlane, 5, 4), 'Map', WB)
   H.gradients(nn.SpatialConvolutionMap(nn.tables.full(2, 2), 2, 2), torch.Tensor(2, 2, 3, 3), 'Map batch', WB)
   -- A full table gives SpatialFullConvolution.
   local tt = nn.tables.full(2, 3)
   local fm = nn.SpatialFullConvolutionMap(tt, 2, 3, 2, 1)
   local fc = nn.SpatialFullConvolution(2, 3, 2, 3, 2, 1)
   for k = 1, tt:size(1) do fm.weight[k]:copy(fc.weight[tt[k][1]][tt[k][2]]) end
   fm.bias:copy(fc.bias)
   local y = torch.randn(2, 3, 4)
   H.close(fm:forward(y), fc:forward(y), 1e-12, 'FullConvolutionMap as FullConvolution')
   local rf = nn.SpatialFullConvolutionMap(nn.tables.random(2, 3, 1), 2, 2, 2, 1)
   H.gradients(rf, torch.Tensor(rf.nInputPlane, 3, 3), 'FullMap', WB)
end)

H.case('SpatialDepthWiseConvolution: planes convolved on their own', function()
   local m = nn.SpatialDepthWiseConvolution(2, 3, 3, 3, 1, 1, 1, 1)
   local x = torch.randn(2, 2, 5, 5)
   local out = m:forward(x)
   H.check(out:isSize(torch.LongStorage { 2, 6, 5, 5 }), 'output planes: nInputPlane * multiplier')
   local w = m.weight:view(3, 2, 3, 3)
   for c = 1, 2 do
      local conv = nn.SpatialConvolution(1, 3, 3, 3, 1, 1, 1, 1)
      conv.weight:copy(w:select(2, c))
      conv.bias:copy(m.bias:select(2, c))
      H.close(out:narrow(2, (c - 1) * 3 + 1, 3), conv:forward(x:narrow(2, c, 1)), 1e-12, 'plane ' .. c)
   end
   H.gradients(nn.SpatialDepthWiseConvolution(2, 2, 2, 2, 1, 1), torch.Tensor(2, 3, 3), 'DepthWise', WB)
   H.gradients(nn.SpatialDepthWiseConvolution(2, 2, 2, 2, 2, 1, 1, 0), torch.Tensor(2, 2, 4, 3), 'DepthWise batch', WB)
end)

H.case('SpatialConvolutionLocal: SpatialConvolution with repeated kernels; gradients', function()
   local m = nn.SpatialConvolutionLocal(2, 3, 5, 4, 2, 2, 1, 1)
   local conv = nn.SpatialConvolution(2, 3, 2, 2, 1, 1)
   local w = m.weight:view(m.oH * m.oW, 3 * 2 * 2 * 2)
   for o = 1, m.oH * m.oW do w[o]:copy(conv.weight:view(-1)) end
   m.bias:copy(conv.bias:view(3, 1, 1):expand(3, m.oH, m.oW))
   local x = torch.randn(2, 2, 4, 5)
   H.close(m:forward(x), conv:forward(x), 1e-12, 'repeated kernels')
   H.gradients(nn.SpatialConvolutionLocal(2, 2, 4, 3, 2, 2, 1, 1, 1, 0), torch.Tensor(2, 3, 4), 'Local', WB)
   H.gradients(nn.SpatialConvolutionLocal(1, 2, 3, 3, 2, 2), torch.Tensor(2, 1, 3, 3), 'Local batch', WB)
   raises(function() m:forward(torch.randn(2, 5, 5)) end, 'expected 2x4x5', 'wrong size')
end)

H.case('SpatialSubSampling', function()
   local m = nn.SpatialSubSampling(1, 2, 2, 2, 2)
   m.weight:fill(2)
   m.bias:fill(1)
   H.close(m:forward(ramp(4)), torch.Tensor { { { 14, 22 }, { 46, 54 } } }:mul(2):add(1), 0, 'window sums')
   H.gradients(nn.SpatialSubSampling(2, 2, 3, 1, 2), torch.Tensor(2, 5, 4), 'SubSampling', WB)
   H.gradients(nn.SpatialSubSampling(2, 2, 2, 2, 1), torch.Tensor(2, 2, 4, 3), 'SubSampling batch', WB)
end)

H.case('Max pooling: values, indices, unpooling', function()
   local m = nn.SpatialMaxPooling(2, 2)
   H.close(m:forward(ramp(4)), torch.Tensor { { { 6, 8 }, { 14, 16 } } }, 0, 'SpatialMaxPooling')
   H.close(m.indices, torch.LongTensor { { { 6, 8 }, { 14, 16 } } }, 0, 'indices: positions in the plane')
   local u = nn.SpatialMaxUnpooling(m)
   local want = torch.zeros(16)
   for _, at in ipairs { 6, 8, 14, 16 } do want[at] = at end
   H.close(u:forward(m.output), want:view(1, 4, 4), 0, 'unpooled: the maxima back in place, zeros elsewhere')
   H.close(u:backward(m.output, ramp(4)), m.output, 0, 'unpooling gradient: read at the maxima')
   local c = nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil()
   H.check(c:forward(torch.randn(1, 6, 6)):isSize(torch.LongStorage { 1, 4, 4 }), 'ceil mode size')
   local d = nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 0, 0, 2, 2)
   H.close(d:forward(ramp(3)), torch.Tensor { { { 9 } } }, 0, 'dilated window corners')
   H.gradients(nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 1, 0, 2, 1):ceil(), torch.Tensor(2, 6, 5), 'DilatedMax')
   local pool = nn.SpatialMaxPooling(2, 2)
   H.gradients(nn.SpatialMaxUnpooling(pool), pool:forward(torch.randn(2, 2, 4, 6)):clone(), 'MaxUnpooling')
   raises(function() nn.SpatialMaxPooling(2, 2, 1, 1, 2, 2):forward(torch.randn(1, 4, 4)) end,
      'padding (2) must be at most half the window', 'padding too big')
end)

H.case('Average pooling: divisors with and without the padding', function()
   local m = nn.SpatialAveragePooling(2, 2, 2, 2)
   H.close(m:forward(ramp(4)), torch.Tensor { { { 3.5, 5.5 }, { 11.5, 13.5 } } }, 0, 'SpatialAveragePooling')
   local x = torch.Tensor { { { 1, 2 }, { 3, 4 } } }
   local inc = nn.SpatialAveragePooling(3, 3, 1, 1, 1, 1)
   H.close(inc:forward(x), torch.Tensor(1, 2, 2):fill(10 / 9), 1e-12, 'count include pad')
   local exc = nn.SpatialAveragePooling(3, 3, 1, 1, 1, 1):setCountExcludePad()
   H.close(exc:forward(x), torch.Tensor(1, 2, 2):fill(10 / 4), 1e-12, 'count exclude pad')
   H.gradients(nn.SpatialAveragePooling(3, 2, 2, 1, 1, 1):ceil(), torch.Tensor(2, 5, 6), 'Average ceil')
   H.gradients(nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):setCountExcludePad(), torch.Tensor(2, 2, 5, 5),
      'Average exclude pad')
end)

H.case('Adaptive, fractional and LP pooling', function()
   H.close(nn.SpatialAdaptiveMaxPooling(2, 2):forward(ramp(4)), torch.Tensor { { { 6, 8 }, { 14, 16 } } }, 0,
      'adaptive max')
   H.close(nn.SpatialAdaptiveAveragePooling(2, 2):forward(ramp(4)), torch.Tensor { { { 3.5, 5.5 }, { 11.5, 13.5 } } },
      0, 'adaptive average')
   -- 5 columns to 2: windows [1, 3] and [3, 5] overlap.
   local row = torch.Tensor { { { 1, 9, 5, 2, 3 } } }
   H.close(nn.SpatialAdaptiveAveragePooling(2, 1):forward(row), torch.Tensor { { { 5, 10 / 3 } } }, 1e-12,
      'adaptive windows overlap')
   H.gradients(nn.SpatialAdaptiveMaxPooling(2, 3), torch.Tensor(2, 5, 7), 'AdaptiveMax')
   H.gradients(nn.SpatialAdaptiveAveragePooling(3, 2), torch.Tensor(2, 2, 5, 4), 'AdaptiveAverage')
   local f = nn.SpatialFractionalMaxPooling(2, 2, 3, 4):fixPoolingRegions()
   local x = torch.randn(2, 2, 7, 6)
   local out = f:forward(x)
   H.check(out:isSize(torch.LongStorage { 2, 2, 4, 3 }), 'fractional output size')
   local flat = x:view(2, 2, -1)
   H.close(out:view(2, 2, -1), flat:gather(3, f.indices:view(2, 2, -1)), 0, 'fractional outputs are input values')
   H.gradients(nn.SpatialFractionalMaxPooling(2, 3, 0.5, 0.6):fixPoolingRegions(), torch.Tensor(2, 8, 7), 'Fractional')
   local lp = nn.SpatialLPPooling(1, 2, 2, 2)
   H.close(lp:forward(torch.Tensor { { { 3, 4 }, { 0, 0 } } }), torch.Tensor { { { 5 } } }, 1e-12, 'LP norm 2')
   H.gradients(nn.SpatialLPPooling(2, 2, 2, 2, 1, 1), torch.Tensor(2, 4, 3), 'LPPooling', nil, 0.5, 2)
   H.gradients(nn.SpatialLPPooling(2, 3, 2, 1), torch.Tensor(2, 2, 3, 4), 'LPPooling p=3', nil, 0.5, 2)
end)

H.case('Reflection and replication padding, up-sampling, PixelShuffle', function()
   local row = torch.Tensor { { { 1, 2, 3 } } }
   H.close(nn.SpatialReflectionPadding(2, 2, 0, 0):forward(row), torch.Tensor { { { 3, 2, 1, 2, 3, 2, 1 } } }, 0,
      'reflection')
   H.close(nn.SpatialReplicationPadding(2, 1, 0, 0):forward(row), torch.Tensor { { { 1, 1, 1, 2, 3, 3 } } }, 0,
      'replication')
   H.close(nn.SpatialReplicationPadding(-1, 0, 0, 0):forward(row), torch.Tensor { { { 2, 3 } } }, 0, 'cropping')
   H.gradients(nn.SpatialReflectionPadding(2, -1, 1, 2), torch.Tensor(2, 2, 4, 5), 'Reflection')
   H.gradients(nn.SpatialReplicationPadding(1, 3, -1, 2), torch.Tensor(2, 4, 5), 'Replication')
   raises(function() nn.SpatialReflectionPadding(3):forward(torch.randn(1, 3, 3)) end, 'smaller than the input',
      'reflection wider than the input')
   local x = torch.Tensor { { { 1, 2 }, { 3, 4 } } }
   H.close(nn.SpatialUpSamplingNearest(2):forward(x),
      torch.Tensor { { { 1, 1, 2, 2 }, { 1, 1, 2, 2 }, { 3, 3, 4, 4 }, { 3, 3, 4, 4 } } }, 0, 'nearest')
   local b = nn.SpatialUpSamplingBilinear(2):forward(x)
   H.close(b[1][1], torch.Tensor { 1, 4 / 3, 5 / 3, 2 }, 1e-12, 'bilinear first row, corners aligned')
   H.close(b[1][4], torch.Tensor { 3, 10 / 3, 11 / 3, 4 }, 1e-12, 'bilinear last row')
   H.check(nn.SpatialUpSamplingBilinear({ oheight = 3, owidth = 5 }):forward(x):isSize(torch.LongStorage { 1, 3, 5 }),
      'bilinear to a size')
   H.gradients(nn.SpatialUpSamplingNearest(3), torch.Tensor(2, 2, 3), 'Nearest')
   H.gradients(nn.SpatialUpSamplingBilinear(2), torch.Tensor(2, 2, 3, 2), 'Bilinear')
   H.gradients(nn.UpSampling(2, 'linear'), torch.Tensor(1, 2, 3, 2), 'UpSampling linear')
   H.close(nn.UpSampling(2):forward(x:view(1, 1, 2, 2)), nn.SpatialUpSamplingNearest(2):forward(x:view(1, 1, 2, 2)), 0,
      'UpSampling nearest')
   raises(function() nn.UpSampling({ oheight = 2, owidth = 2 }) end, 'requires a scale_factor', 'nearest to a size')
   local ps = nn.PixelShuffle(2)
   H.close(ps:forward(torch.Tensor { 1, 2, 3, 4 }:view(4, 1, 1)), torch.Tensor { { { 1, 2 }, { 3, 4 } } }, 0,
      'PixelShuffle')
   H.gradients(nn.PixelShuffle(2), torch.Tensor(2, 8, 2, 3), 'PixelShuffle')
   raises(function() ps:forward(torch.randn(3, 2, 2)) end, 'not a multiple of 4', 'PixelShuffle planes')
end)

H.case('Local normalisation', function()
   local lrn = nn.SpatialCrossMapLRN(1, 1, 1, 1)
   local x = torch.Tensor { { { 1, 2 } }, { { 3, 0.5 } } }
   H.close(lrn:forward(x), torch.cdiv(x, torch.cmul(x, x):add(1)), 1e-12, 'LRN of size 1')
   H.gradients(nn.SpatialCrossMapLRN(3, 0.5, 0.75, 2), torch.Tensor(4, 3, 2), 'CrossMapLRN')
   H.gradients(nn.SpatialCrossMapLRN(2, 0.5, 0.75, 2), torch.Tensor(2, 3, 2, 2), 'CrossMapLRN even size')
   local sub = nn.SpatialSubtractiveNormalization(2, torch.ones(3, 3))
   H.close(sub:forward(torch.Tensor(2, 5, 4):fill(3)), torch.zeros(2, 5, 4), 1e-12, 'a constant has no contrast')
   local div = nn.SpatialDivisiveNormalization(2, torch.ones(3, 3))
   local out = div:forward(torch.Tensor(2, 5, 5):fill(3))
   H.close(out[1][3][3], 1, 1e-12, 'divided by its local deviation inside')
   H.gradients(nn.SpatialSubtractiveNormalization(2, torch.ones(3)), torch.Tensor(2, 5, 4), 'Subtractive 1d')
   H.gradients(nn.SpatialSubtractiveNormalization(2, torch.rand(3, 5)), torch.Tensor(2, 2, 4, 6), 'Subtractive 2d')
   H.gradients(nn.SpatialDivisiveNormalization(3, torch.ones(3)), torch.Tensor(3, 4, 4), 'Divisive 1d')
   H.gradients(nn.SpatialDivisiveNormalization(2, torch.rand(3, 3)), torch.Tensor(2, 2, 4, 5), 'Divisive 2d')
   H.gradients(nn.SpatialContrastiveNormalization(2, torch.ones(3, 3)), torch.Tensor(2, 5, 5), 'Contrastive')
   local kernel = torch.ones(3, 3)
   nn.SpatialSubtractiveNormalization(2, kernel)
   H.check(kernel:max() == 1, 'the given kernel is left as it was')
   raises(function() nn.SpatialSubtractiveNormalization(1, torch.ones(2, 2)) end, 'odd dimensions', 'even kernel')
end)

H.case('SpatialSoftMax, SpatialLogSoftMax', function()
   local x = torch.randn(2, 3, 4, 5)
   local s = nn.SpatialSoftMax():forward(x)
   H.close(s:sum(2), torch.ones(2, 1, 4, 5), 1e-12, 'probabilities over the planes')
   H.close(nn.SpatialLogSoftMax():forward(x), torch.log(s), 1e-12, 'log')
   H.gradients(nn.SpatialSoftMax(), torch.Tensor(3, 2, 2), 'SpatialSoftMax')
   H.gradients(nn.SpatialLogSoftMax(), torch.Tensor(2, 3, 2, 2), 'SpatialLogSoftMax')
end)

-- Gradient of a criterion against central differences.
local function criterionGradient(c, input, target, what)
   c:forward(input, target)
   local g = c:backward(input, target):clone()
   local s = input:storage()
   for i = 1, input:nElement() do
      local v = s[i]
      s[i] = v + 1e-6
      local a = c:forward(input, target)
      s[i] = v - 1e-6
      local b = c:forward(input, target)
      s[i] = v
      H.close(g:storage()[i], (a - b) / 2e-6, 1e-6, what .. ' element ' .. i)
   end
end

H.case('SpatialClassNLLCriterion, SpatialAutoCropMSECriterion', function()
   local input = torch.log(torch.Tensor { 0.2, 0.8, 0.6, 0.4 }:view(1, 2, 1, 2))
   local target = torch.Tensor { { { 2, 1 } } }
   local c = nn.SpatialClassNLLCriterion()
   -- Pixel 1 is class 2 (0.6), pixel 2 class 1 (0.8).
   H.close(c:forward(input, target), -(math.log(0.6) + math.log(0.8)) / 2, 1e-12, 'mean over pixels')
   local w = nn.SpatialClassNLLCriterion(torch.Tensor { 1, 3 })
   H.close(w:forward(input, target), -(3 * math.log(0.6) + math.log(0.8)) / 4, 1e-12, 'weighted')
   local targets = torch.Tensor { 1, 2, 3, 3, 2, 1, 1, 2 }:view(2, 2, 2)
   criterionGradient(nn.SpatialClassNLLCriterion(torch.Tensor { 1, 2, 0.5 }), torch.randn(2, 3, 2, 2), targets, 'NLL')
   criterionGradient(nn.SpatialClassNLLCriterion(nil, false), torch.randn(3, 2, 2), torch.Tensor { { 1, 3 }, { 2, 2 } },
      'NLL single')
   raises(function() c:forward(input, torch.Tensor { { { 3, 1 } } }) end, 'classes 1 to 2', 'target out of range')
   local crop = nn.SpatialAutoCropMSECriterion()
   local x = torch.randn(2, 3, 2, 3)
   local t = torch.randn(2, 3, 5, 4)
   local want = nn.MSECriterion():forward(x, t:narrow(3, 2, 2):narrow(4, 1, 3):contiguous())
   H.close(crop:forward(x, t), want, 1e-12, 'centre crop')
   criterionGradient(crop, x, t, 'AutoCropMSE')
   raises(function() crop:forward(torch.randn(3, 6, 3), torch.randn(3, 5, 4)) end, 'must not be larger', 'bigger input')
   raises(function() crop:forward(torch.randn(2, 2, 3), torch.randn(3, 2, 3)) end, 'channels', 'channels differ')
end)

H.case('SpatialDropout drops whole planes', function()
   local d = nn.SpatialDropout(0.5)
   local out = d:forward(torch.ones(2, 50, 3, 3))
   local planes = out:view(100, 9)
   H.check(torch.eq((planes:min(2)), (planes:max(2))):sum() == 100, 'each plane all kept or all dropped')
   H.check(out:sum() > 0 and out:sum() < 900, 'some planes dropped, some kept')
   local g = d:backward(torch.ones(2, 50, 3, 3), torch.ones(2, 50, 3, 3))
   H.close(g, out, 0, 'the gradient follows the same planes')
   d:evaluate()
   H.close(d:forward(torch.ones(3, 2, 2)), torch.Tensor(3, 2, 2):fill(0.5), 0, 'evaluation scales by 1 - p')
   d:training()
   raises(function() d:forward(torch.ones(3, 3)) end, 'must be 3D', 'SpatialDropout dims')
end)

H.case('SpatialBatchNormalization takes single images in evaluation', function()
   local bn = nn.SpatialBatchNormalization(3)
   local x = torch.randn(4, 3, 2, 2)
   bn:forward(x)
   bn:evaluate()
   local one = bn:forward(x[2]):clone()
   H.close(one, bn:forward(x)[2], 1e-12, 'one image as a batch of one')
   H.gradients(bn, torch.Tensor(3, 2, 2), 'SpatialBatchNormalization single', WB)
end)

H.case('saved and reloaded, the modules compute the same', function()
   local x = torch.randn(2, 4, 6)
   for _, m in ipairs {
      nn.SpatialConvolutionMap(nn.tables.oneToOne(2), 2, 2), nn.SpatialDepthWiseConvolution(2, 2, 2, 2),
      nn.SpatialFullConvolution(2, 2, 2, 2), nn.SpatialAveragePooling(2, 2), nn.SpatialCrossMapLRN(3),
      nn.SpatialContrastiveNormalization(2, torch.ones(3, 3)), nn.SpatialLPPooling(2, 2, 2, 2),
   } do
      local out = m:forward(x):clone()
      local f = torch.MemoryFile('rw'):binary()
      f:writeObject(m)
      f:seek(1)
      local back = f:readObject()
      H.close(back:forward(x), out, 0, torch.type(m))
      H.check(tostring(back):find(torch.type(m), 1, true) == 1, 'print format of %s', torch.type(m))
   end
end)

H.finish()
