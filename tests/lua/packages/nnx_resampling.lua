-- nnx's nn.SpatialReSampling: bilinear values, batch form, the backward pass as the exact
-- adjoint of the forward, a gradOutput of another size than the module's output (resampled back
-- with the weights of that size, as nnx's C loops do; dpnn's SpatialGlimpse test relies on it),
-- and bad input.
require 'nnx'

local function close(a, b, tol, what)
   local d = (a - b):abs():max()
   assert(d <= (tol or 1e-10), what .. ': off by ' .. d)
end

local function raises(pattern, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error matching ' .. pattern)
   assert(tostring(err):find(pattern, 1, true), 'unexpected error: ' .. tostring(err))
end

torch.setdefaulttensortype('torch.DoubleTensor')

-- 2x2 -> 3x3: corners kept, midpoints between them
local m = nn.SpatialReSampling{ owidth = 3, oheight = 3 }
local x = torch.Tensor{ { { 0, 2 }, { 4, 6 } } }
close(m:forward(x), torch.Tensor{ { { 0, 1, 2 }, { 2, 3, 4 }, { 4, 5, 6 } } }, 1e-12, '2x2 to 3x3')

-- the same size is the identity; ratios give the size
local img = torch.randn(3, 5, 7)
close(nn.SpatialReSampling{ owidth = 7, oheight = 5 }:forward(img), img, 1e-12, 'identity')
assert(nn.SpatialReSampling{ rwidth = 2, rheight = 0.5 }:forward(torch.randn(2, 6, 4)):isSameSizeAs(torch.randn(2, 3, 8)))

-- a batch resamples each plane as the single form does
local batch = torch.randn(4, 2, 6, 5)
local b = nn.SpatialReSampling{ owidth = 9, oheight = 4 }
local out = b:forward(batch):clone()
assert(out:isSameSizeAs(torch.randn(4, 2, 4, 9)))
for k = 1, 4 do close(out[k], b:forward(batch[k]), 1e-12, 'batch item ' .. k) end

-- backward is the adjoint: <W x, g> == <x, W^T g>, for shrinking and growing
for _, sizes in ipairs({ { 6, 5, 4, 9 }, { 3, 8, 7, 2 }, { 1, 4, 5, 1 } }) do
   local ih, iw, oh, ow = (table.unpack or unpack)(sizes)
   local r = nn.SpatialReSampling{ owidth = ow, oheight = oh }
   local input, g = torch.randn(2, 3, ih, iw), torch.randn(2, 3, oh, ow)
   local lhs = r:forward(input):dot(g)
   local rhs = input:dot(r:backward(input, g))
   assert(math.abs(lhs - rhs) < 1e-9 * math.max(1, math.abs(lhs)), 'adjoint ' .. table.concat(sizes, 'x'))
end

-- a gradOutput of another size than the configured output, without a forward: the adjoint of
-- resampling the input to gradOutput's size
local input = torch.randn(2, 1, 8, 8)
local g = torch.randn(2, 1, 4, 4)
local srs = nn.SpatialReSampling{ oheight = 16, owidth = 16 }
local gi = srs:updateGradInput(input, g)
assert(gi:isSameSizeAs(input))
local same = nn.SpatialReSampling{ oheight = 4, owidth = 4 }
close(gi, same:backward(input, g), 1e-12, 'gradOutput size taken from gradOutput')

-- bad input names the module
raises('nn.SpatialReSampling: give {owidth=, oheight=}', function() nn.SpatialReSampling{ owidth = 3 } end)
raises('nn.SpatialReSampling: input must be 3D', function() m:forward(torch.randn(5)) end)
raises('nn.SpatialReSampling: the output size must be at least 1x1', function()
   nn.SpatialReSampling{ rwidth = 0.1, rheight = 0.1 }:forward(torch.randn(1, 4, 4))
end)
raises('nn.SpatialReSampling: gradOutput must have as many dimensions as the input', function()
   m:updateGradInput(torch.randn(1, 2, 2), torch.randn(3, 3))
end)
print('ok')
