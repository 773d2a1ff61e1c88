-- The 3-D modules: convolutions (plain, dilated, full), pooling (max, dilated max, average,
-- fractional, unpooling), replication padding, trilinear up-sampling, dropout and batch
-- normalisation: values by hand, gradients against finite differences, batches, errors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local WB = { { 'weight', 'gradWeight' }, { 'bias', 'gradBias' } }

local function raises(f, pattern, what)
   local ok, err = pcall(f)
   H.check(not ok, '%s: no error', what)
   H.check(tostring(err):find(pattern, 1, true), '%s: error %q does not mention %q', what, tostring(err), pattern)
end

-- 1..n^3 as one n x n x n volume (1 x n x n x n).
local function cube(n)
   return torch.range(1, n * n * n):view(1, n, n, n)
end

H.case('VolumetricConvolution and VolumetricDilatedConvolution', function()
   local c = nn.VolumetricConvolution(1, 1, 2, 2, 2)
   c.weight:fill(1)
   c.bias:zero()
   -- The first 2x2x2 block of 1..27: 1 2 4 5 10 11 13 14.
   H.close(c:forward(cube(3))[1][1][1][1], 60, 0, 'a block sum')
   H.check(c.output:isSize(torch.LongStorage { 1, 2, 2, 2 }), 'output size')
   local d = nn.VolumetricDilatedConvolution(1, 1, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2)
   d.weight:fill(1)
   d.bias:zero()
   H.close(d:forward(cube(3)), torch.Tensor(1, 1, 1, 1):fill(1 + 3 + 7 + 9 + 19 + 21 + 25 + 27), 0, 'dilated corners')
   H.gradients(nn.VolumetricConvolution(2, 2, 2, 3, 2, 1, 2, 1, 1, 0, 1), torch.Tensor(2, 3, 4, 3), 'Volumetric', WB)
   H.gradients(nn.VolumetricConvolution(1, 2, 2, 2, 2):noBias(), torch.Tensor(2, 1, 3, 3, 3), 'Volumetric batch',
      { WB[1] })
   H.gradients(nn.VolumetricDilatedConvolution(2, 1, 2, 2, 2, 1, 1, 1, 0, 1, 0, 2, 1, 2), torch.Tensor(2, 4, 3, 4),
      'VolumetricDilated', WB)
   raises(function() c:forward(torch.randn(2, 3, 3, 3)) end, 'has 2 planes, expected 1', 'wrong planes')
   raises(function() c:forward(torch.randn(3, 3, 3)) end, 'must be 4D', 'wrong dims')
   local printed = tostring(nn.VolumetricConvolution(1, 2, 3, 3, 3, 2, 2, 2))
   H.check(printed == 'nn.VolumetricConvolution(1 -> 2, 3x3x3, 2,2,2)', 'print: %s', printed)
end)

H.case('VolumetricFullConvolution', function()
   local f = nn.VolumetricFullConvolution(1, 1, 2, 2, 2, 2, 2, 2)
   f.weight:fill(1)
   f.bias:zero()
   local out = f:forward(torch.Tensor { 1, 2, 3, 4, 5, 6, 7, 8 }:view(1, 2, 2, 2))
   H.check(out:isSize(torch.LongStorage { 1, 4, 4, 4 }), 'stride 2 doubles each extent')
   H.close(out[1][4][4][4], 8, 0, 'the last voxel spread into the last block')
   H.close(out[1][1][2][1], 1, 0, 'the first voxel spread into the first block')
   local a = nn.VolumetricFullConvolution(2, 1, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0, 1)
   -- adjT = 1, adjW = 0, adjH = 1 on a 2 x 3 x 2 (T x H x W) input.
   H.check(a:forward(torch.randn(2, 2, 3, 2)):isSize(torch.LongStorage { 1, 4, 6, 3 }), 'adj per dimension')
   local dual = nn.VolumetricFullConvolution(2, 1, 3, 3, 3, 2, 2, 2, 1, 1, 1)
   dual.weight:copy(a.weight)
   dual.bias:copy(a.bias)
   local x = torch.randn(2, 2, 3, 2)
   H.close(dual:forward { x, torch.Tensor(4, 6, 3) }, a:forward(x), 0, '{input, target}')
   H.gradients(nn.VolumetricFullConvolution(2, 2, 2, 2, 3, 1, 2, 1), torch.Tensor(2, 2, 2, 3), 'VolumetricFull', WB)
   H.gradients(nn.VolumetricFullConvolution(1, 2, 2, 2, 2, 2, 1, 1, 1, 0, 0), torch.Tensor(2, 1, 2, 2, 2),
      'VolumetricFull batch', WB)
end)

H.case('Volumetric pooling', function()
   local m = nn.VolumetricMaxPooling(2, 2, 2)
   H.close(m:forward(cube(4)), torch.Tensor { 22, 24, 30, 32, 54, 56, 62, 64 }:view(1, 2, 2, 2), 0, 'max')
   H.close(m.indices:double(), m.output, 0, 'indices: positions in the volume')
   local u = nn.VolumetricMaxUnpooling(m)
   local back = u:forward(m.output)
   H.close(back:sum(), m.output:sum(), 0, 'unpooled values back')
   H.close(back[1][2][2][2], 22, 0, 'at the maximum')
   H.close(back[1][1][1][1], 0, 0, 'zero elsewhere')
   local a = nn.VolumetricAveragePooling(2, 2, 2)
   H.close(a:forward(cube(2)), torch.Tensor(1, 1, 1, 1):fill(4.5), 0, 'average')
   local c = nn.VolumetricMaxPooling(2, 2, 2, 2, 2, 2):ceil()
   H.check(c:forward(torch.randn(1, 3, 5, 5)):isSize(torch.LongStorage { 1, 2, 3, 3 }), 'ceil mode')
   H.gradients(nn.VolumetricMaxPooling(2, 2, 3, 1, 2, 1, 1, 1, 1), torch.Tensor(2, 3, 4, 4), 'VolumetricMax')
   H.gradients(nn.VolumetricDilatedMaxPooling(2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 1, 1):ceil(), torch.Tensor(2, 4, 3, 3),
      'VolumetricDilatedMax')
   H.gradients(nn.VolumetricAveragePooling(2, 1, 2, 1, 1, 1), torch.Tensor(2, 1, 3, 3, 3), 'VolumetricAverage')
   local pool = nn.VolumetricMaxPooling(2, 2, 2)
   H.gradients(nn.VolumetricMaxUnpooling(pool), pool:forward(torch.randn(2, 4, 2, 4)):clone(), 'VolumetricMaxUnpooling')
   local f = nn.VolumetricFractionalMaxPooling(2, 2, 2, 2, 3, 2):fixPoolingRegions()
   H.check(f:forward(torch.randn(2, 5, 6, 4)):isSize(torch.LongStorage { 2, 2, 3, 2 }), 'fractional: H x W x T sizes')
   H.gradients(f, torch.Tensor(2, 5, 6, 4), 'VolumetricFractional')
   H.gradients(nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.5, 0.5, 0.7):fixPoolingRegions(), torch.Tensor(2, 1, 5, 4,
      6), 'VolumetricFractional ratio')
   raises(function() nn.VolumetricMaxUnpooling(nn.VolumetricMaxPooling(2, 2, 2, 1, 1, 1)) end, 'must equal its stride',
      'overlapping pooling')
end)

H.case('VolumetricReplicationPadding, trilinear UpSampling, VolumetricDropout, VolumetricBatchNormalization',
   function()
      local p = nn.VolumetricReplicationPadding(1, 0, 0, 0, 0, 1)
      local out = nn.VolumetricReplicationPadding(0, 0, 0, 0, 0, 1):forward(torch.Tensor { 1, 2 }:view(1, 2, 1, 1))
      H.close(out, torch.Tensor { 1, 2, 2 }:view(1, 3, 1, 1), 0, 'a frame repeated at the back')
      H.check(p:forward(torch.randn(2, 2, 2, 3)):isSize(torch.LongStorage { 2, 3, 2, 4 }), 'left column added')
      H.gradients(nn.VolumetricReplicationPadding(1, 2, -1, 1, 2, 0), torch.Tensor(2, 2, 3, 3), 'Replication')
      H.gradients(nn.UpSampling(2, 'trilinear'), torch.Tensor(1, 1, 2, 2, 3), 'UpSampling trilinear')
      local up = nn.UpSampling({ odepth = 3, oheight = 3, owidth = 3 }, 'linear'):forward(torch.Tensor { 0, 2, 0, 2, 0,
         2, 0, 2 }:view(1, 1, 2, 2, 2))
      H.close(up[1][1][2][2], torch.Tensor { 0, 1, 2 }, 1e-12, 'trilinear midpoints')
      local d = nn.VolumetricDropout(0.5)
      local o = d:forward(torch.ones(40, 2, 2, 2)):view(40, 8)
      H.check(torch.eq((o:min(2)), (o:max(2))):sum() == 40, 'whole volumes dropped')
      local bn = nn.VolumetricBatchNormalization(2)
      H.gradients(bn, torch.Tensor(3, 2, 2, 2, 2), 'VolumetricBatchNormalization', WB)
      bn:evaluate()
      H.gradients(bn, torch.Tensor(2, 2, 2, 2), 'VolumetricBatchNormalization single', WB)
      raises(function() bn:training(); bn:forward(torch.randn(2, 2, 2, 2)) end, 'only mini-batch supported', 'single')
   end)

H.finish()
