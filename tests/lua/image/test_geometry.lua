-- image's geometry against values worked out by hand or by plain Lua on small inputs: crop and
-- its formats, translate, scale (modes and size forms), rotate, flips, warp, affinetransform,
-- polar and log-polar maps.
--   th test_geometry.lua

require 'image'
local h = dofile('helpers.lua')

local function ramp(c, hh, w, t)
   local x = (t or torch.DoubleTensor)(c, hh, w)
   for i = 1, x:nElement() do x:storage()[i] = i end
   return x
end

-- crop
local src = ramp(2, 4, 5)
h.near(image.crop(src, 1, 1, 3, 4), src[{ {}, { 2, 4 }, { 2, 3 } }], 0, 'crop x1 y1 x2 y2')
local dst = torch.DoubleTensor(2, 2, 2)
image.crop(dst, src, 3, 2)
h.near(dst, src[{ {}, { 3, 4 }, { 4, 5 } }], 0, 'crop into dst at x y')
h.near(image.crop(src, 'tl', 2, 3), src[{ {}, { 1, 3 }, { 1, 2 } }], 0, "crop 'tl'")
h.near(image.crop(src, 'br', 2, 3), src[{ {}, { 2, 4 }, { 4, 5 } }], 0, "crop 'br'")
h.near(image.crop(src, 'tr', 2, 1), src[{ {}, { 1, 1 }, { 4, 5 } }], 0, "crop 'tr'")
h.near(image.crop(src, 'bl', 3, 2), src[{ {}, { 3, 4 }, { 1, 3 } }], 0, "crop 'bl'")
h.near(image.crop(src, 'c', 3, 2), src[{ {}, { 2, 3 }, { 2, 4 } }], 0, "crop 'c'")
h.near(image.crop(src[1], 0, 0, 2, 2), src[1][{ { 1, 2 }, { 1, 2 } }], 0, 'crop of a 2-D image')
local scaled = torch.DoubleTensor(2, 4, 4)
image.crop(scaled, src, 0, 0, 2, 2)
h.near(scaled, image.scale(src[{ {}, { 1, 2 }, { 1, 2 } }]:clone(), 4, 4), 0, 'crop then scale into dst')

-- translate
local moved = image.translate(src, 2, 1)
local want = torch.zeros(2, 4, 5)
want[{ {}, { 2, 4 }, { 3, 5 } }]:copy(src[{ {}, { 1, 3 }, { 1, 3 } }])
h.near(moved, want, 0, 'translate by (2, 1)')
h.near(image.translate(src, -10, 0), torch.zeros(2, 4, 5), 0, 'translate out of the image')

-- scale: torch/image's own worked examples.
local function outer(v)
   local x = torch.DoubleTensor(v)
   return torch.ger(x, x)
end
local im = outer{ 1, 2, 4, 2 }
h.near(image.scale(im, 7, 7, 'bilinear'), outer{ 1, 1.5, 2, 3, 4, 3, 2 }, 1e-5, 'bilinear up')
h.near(image.scale(im, 3, 3, 'bilinear'), outer{ 1.25, 3, 2.5 }, 1e-5, 'bilinear down')
h.near(image.scale(im, 7, 7, 'bicubic'), outer{ 1, 1.4375, 2, 3.1875, 4, 3.25, 2 }, 1e-5, 'bicubic up')
h.near(image.scale(im, 3, 3, 'bicubic'), outer{ 1, 3.1875, 2 }, 1e-5, 'bicubic down')
h.near(image.scale(torch.ByteTensor{ { 0, 1, 32 } }, 4, 1, 'bicubic'), torch.ByteTensor{ { 0, 0, 9, 32 } }, 0,
   'bicubic up, bytes')
h.near(image.scale(torch.ByteTensor{ { 1, 2 }, { 2, 3 } }, 3, 3), torch.ByteTensor{ { 1, 2, 2 }, { 2, 3, 3 }, { 2, 3, 3 } },
   0, 'bilinear up, bytes')
-- nearest: pixel (x, y) of the result is pixel (floor(x*sw/dw), floor(y*sh/dh)).
local big = ramp(3, 6, 9)
local near = image.scale(big, 4, 5, 'simple')
local ref = torch.DoubleTensor(3, 5, 4)
for k = 1, 3 do
   for y = 0, 4 do
      for x = 0, 3 do
         ref[k][y + 1][x + 1] = big[k][math.floor(y * 6 / 5) + 1][math.floor(x * 9 / 4) + 1]
      end
   end
end
h.near(near, ref, 0, 'simple scale against plain Lua')
-- Size forms.
local function dims(t) return t:size(t:dim()) .. 'x' .. t:size(t:dim() - 1) end
local pic = torch.FloatTensor(3, 40, 60)
h.check(dims(image.scale(pic, 30)) == '30x20', 'a number is the longer side')
h.check(dims(image.scale(pic, '30')) == '30x20', 'a number string too')
h.check(dims(image.scale(pic, '16x12')) == '16x12', "'WxH'")
h.check(dims(image.scale(pic, '^20')) == '30x20', "'^MIN'")
h.check(dims(image.scale(pic, '*2')) == '120x80', "'*SC'")
h.check(dims(image.scale(pic, '*1/4')) == '15x10', "'*SCn/SCd'")
h.check(dims(image.scale(pic, '^20', 'bicubic')) == '30x20', 'size and mode')
local into = torch.FloatTensor(3, 10, 10)
h.check(image.scale(into, pic, 'simple') == into, 'scale(dst, src, mode) fills dst')
h.check(dims(image.scale(pic[1], 6, 4)) == '6x4', '2-D scale')
h.near(image.scale(big, 9, 6), big, 0, 'scale to the same size copies')

-- rotate: a quarter turn of a square image moves (x, y) to (n-1-y, x); corners outside are 0.
local sq = ramp(1, 5, 5)
local r = image.rotate(sq, math.pi / 2)
local q = torch.DoubleTensor(1, 5, 5)
for y = 0, 4 do
   for x = 0, 4 do
      -- dst(i, j) = src(round(cos(i-c) - sin(j-c) + c), round(cos(j-c) + sin(i-c) + c))
      q[1][y + 1][x + 1] = sq[1][x + 1][4 - y + 1]
   end
end
h.near(r, q, 0, 'rotate a quarter turn')
h.near(image.rotate(sq, 0, 'bilinear'), sq, 1e-6, 'bilinear rotate by 0')
h.near(image.rotate(sq, 2 * math.pi, 'simple'), sq, 0, 'a full turn')
local corner = image.rotate(torch.ones(1, 9, 9), math.pi / 4)
h.check(corner[1][1][1] == 0 and corner[1][5][5] == 1, 'rotated corners are blank')
local inplace = sq:clone()
image.rotate(inplace, inplace, math.pi / 2)
h.near(inplace, q, 0, 'rotate in place')

-- flips
local f = ramp(2, 3, 4)
local hf, vf = image.hflip(f), image.vflip(f)
for k = 1, 2 do
   for y = 1, 3 do
      for x = 1, 4 do
         h.check(hf[k][y][x] == f[k][y][5 - x] and vf[k][y][x] == f[k][4 - y][x], 'flip pixel')
      end
   end
end
h.near(image.flip(f, 1), torch.cat(f[2]:view(1, 3, 4), f[1]:view(1, 3, 4), 1), 0, 'flip dim 1')
h.near(image.flip(f, 3), hf, 0, 'flip dim 3 is hflip')
h.near(image.flip(f[1], 1), vf[1], 0, 'flip of 2-D')
local five = torch.rand(2, 3, 2, 3, 4)
local back = image.flip(image.flip(five, 4), 4)
h.near(back, five, 0, '5-D flip twice')
local ip = f:clone()
image.hflip(ip, ip)
h.near(ip, hf, 0, 'hflip in place')
h.near(image.hflip(f:transpose(2, 3)), image.vflip(f):transpose(2, 3), 0, 'hflip of a strided view')

-- warp: a zero flow with the offset is the identity in every mode.
local w = torch.rand(2, 6, 7)
local zero = torch.zeros(2, 6, 7)
for _, mode in ipairs{ 'simple', 'bilinear', 'bicubic', 'lanczos' } do
   h.near(image.warp(w, zero, mode), w, 1e-5, 'identity warp, ' .. mode)
end
-- A flow of (0, 1) reads the pixel to the right, the last column clamped.
local flow = torch.zeros(2, 6, 7)
flow[2]:fill(1)
local shifted = w:clone()
shifted[{ {}, {}, { 1, 6 } }]:copy(w[{ {}, {}, { 2, 7 } }])
h.near(image.warp(w, flow, 'bilinear'), shifted, 1e-6, 'warp one pixel left')
-- Positions (offset false) off the image take the pad value.
local pos = torch.zeros(2, 6, 7):fill(-3)
h.near(image.warp(w, pos, 'bilinear', false, 'pad', 0.25), torch.zeros(2, 6, 7):fill(0.25), 0, 'pad value')
-- Half a pixel right: bilinear is the mean of neighbours.
flow[2]:fill(0.5)
local half = image.warp(w, flow, 'bilinear')
h.near(half[{ {}, {}, { 1, 6 } }], (w[{ {}, {}, { 1, 6 } }] + w[{ {}, {}, { 2, 7 } }]) / 2, 1e-6, 'half-pixel bilinear')
h.near(image.warp(w[1], zero, 'simple'), w[1], 0, '2-D warp')
-- affinetransform: identity matrix, then a translation.
h.near(image.affinetransform(w, torch.eye(2)), w, 1e-6, 'identity affine')
local t = image.affinetransform(w, torch.eye(2), 'bilinear', { 0, 1 })
h.near(t[{ {}, {}, { 2, 7 } }], w[{ {}, {}, { 1, 6 } }], 1e-6, 'affine translation')

-- polar: row 1 (angle 0) reads downwards from the centre; the output is square by default.
local disc = ramp(1, 9, 9)
local p = image.polar(disc)
h.check(p:size(2) == 9 and p:size(3) == 9, 'polar output size')
for i = 0, 8 do
   local radius = 4.5 * i / 9
   local yy = math.floor(radius + 4.5)
   h.check(p[1][1][i + 1] == disc[1][yy + 1][5], 'polar radius ' .. i)
end
h.check(image.polar(disc, 'bilinear', 'full'):size(3) == 9, 'bilinear full polar')
local lp = image.logpolar(disc)
h.check(lp[1][1][1] == disc[1][math.floor(1 + 4.5) + 1][5], 'log-polar at radius 1')
h.check(image.logpolar(disc, 'bilinear'):size(2) == 9, 'bilinear log-polar')

h.done()
