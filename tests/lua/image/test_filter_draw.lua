-- image's filtering and drawing: convolve's three modes, minmax, lcn, erode and dilate, the
-- pyramids, toDisplayTensor's grid, drawRect and drawText pixels, and display without a screen.
--   th test_filter_draw.lua

require 'image'
local h = dofile('helpers.lua')

-- convolve: sizes of 'valid', 'full' and 'same', values against plain Lua.
local src = torch.rand(2, 6, 7)
local k = torch.rand(3, 3)
local v = image.convolve(src, k)
h.check(v:size(2) == 4 and v:size(3) == 5, 'valid size')
local full = image.convolve(src, k, 'full')
h.check(full:size(2) == 8 and full:size(3) == 9, 'full size')
local same = image.convolve(src, k, 'same')
h.check(same:isSameSizeAs(src), 'same size')
local want = 0
for a = 1, 3 do
   for b = 1, 3 do
      -- a convolution flips the kernel
      want = want + src[1][2 + a - 1][3 + b - 1] * k[4 - a][4 - b]
   end
end
h.check(math.abs(v[1][2][3] - want) < 1e-12, 'valid value')
h.near(same, full:narrow(2, 2, 6):narrow(3, 2, 7), 0, "'same' is the middle of 'full'")
local blur = image.convolve(src[1], image.gaussian(7), 'same')
h.check(blur:isSameSizeAs(src[1]), '7x7 gaussian blur keeps the size')

-- minmax
local m = image.minmax{ tensor = torch.DoubleTensor{ -2, 0, 2 } }
h.near(m, torch.DoubleTensor{ 0, 0.5, 1 }, 1e-12, 'minmax to [0, 1]')
local s = image.minmax{ tensor = torch.DoubleTensor{ -1, 0, 3 }, symm = true }
h.near(s, torch.DoubleTensor{ 1 / 3, 0.5, 1 }, 1e-12, 'symmetric minmax')
local sat = image.minmax{ tensor = torch.DoubleTensor{ -1, 0.5, 3 }, min = 0, max = 1, saturate = true }
h.near(sat, torch.DoubleTensor{ 0, 0.5, 1 }, 1e-12, 'minmax with saturation')

-- lcn of a grey image: valid-sized, zero mean where flat.
local grey = image.fabio()
local n = image.lcn(grey)
h.check(n:size(1) == 257 - 8 and n:size(2) == 271 - 8, 'lcn size')
h.check(image.lcn(torch.ones(20, 20) + torch.rand(20, 20) * 1e-3):abs():max() < 10, 'lcn bounded')

-- erode and dilate on a small binary image.
local b = torch.zeros(7, 7)
b[{ { 2, 6 }, { 2, 6 } }] = 1
local e = image.erode(b)
local e_want = torch.zeros(7, 7)
e_want[{ { 3, 5 }, { 3, 5 } }] = 1
h.near(e, e_want, 0, 'erode')
local dot = torch.zeros(5, 5)
dot[3][3] = 1
local d_want = torch.zeros(5, 5)
d_want[{ { 2, 4 }, { 2, 4 } }] = 1
h.near(image.dilate(dot), d_want, 0, 'dilate')
local cross = torch.zeros(3, 3)
cross[2][1], cross[2][2] = 1, 1
local dd = image.dilate(dot, cross)
h.check(dd[3][3] == 1 and dd[3][4] == 1 and dd[3][2] == 0, 'dilate with an asymmetric kernel')

-- pyramids
for _, t in ipairs{ 'torch.ByteTensor', 'torch.FloatTensor', 'torch.DoubleTensor' } do
   local out = image.gaussianpyramid(torch.rand(8, 8):mul(200):type(t), { 0.5 })
   h.check(out[1]:type() == t and out[1]:size(1) == 4, 'gaussianpyramid of ' .. t)
end
local gp = image.gaussianpyramid(torch.rand(3, 16, 16), { 1, 0.5, 0.25 })
h.check(#gp == 3 and gp[3]:size(3) == 4, 'three levels')
local lp = image.laplacianpyramid(torch.rand(3, 16, 16), { 1, 0.5 })
h.check(#lp == 2 and lp[1]:size(2) == 16 and lp[2]:size(2) == 8, 'laplacianpyramid levels')

-- toDisplayTensor: 5 images of 1 x 2 x 3 in rows of 2 with padding 2.
local imgs = {}
for i = 1, 5 do imgs[i] = torch.DoubleTensor(1, 2, 3):fill(i) end
local grid = image.toDisplayTensor{ input = imgs, nrow = 2, padding = 2 }
h.check(grid:size(1) == 1 and grid:size(2) == 3 * 4 and grid:size(3) == 2 * 5, 'grid size')
h.check(grid[1][2][2] == 0 and grid[1][2][7] == 0.25 and grid[1][6][2] == 0.5, 'grid places images in order')
h.check(grid[1][1][1] == 1, 'grid background is the maximum')
local batch = torch.rand(64, 3, 8, 8)
local g64 = image.toDisplayTensor{ input = batch, nrow = 8, padding = 1 }
h.check(g64:size(2) == 72 and g64:size(3) == 72, '64 images in an 8x8 grid')
local each = image.toDisplayTensor{ input = batch:narrow(1, 1, 4), scaleeach = true }
h.check(each:max() == 1 and each:min() == 0, 'scaleeach')
h.near(image.toDisplayTensor(torch.DoubleTensor(2, 2):fill(3)), torch.DoubleTensor(2, 2):fill(0), 0,
   'a single flat image')

-- drawRect: outline of (2, 2)-(4, 5), 1-based, on a 3 x 6 x 6 image.
local canvas = torch.zeros(3, 6, 6)
local r = image.drawRect(canvas, 2, 2, 4, 5, { color = { 255, 0, 128 } })
h.check(canvas:sum() == 0, 'drawRect copies by default')
local on = 0
for y = 1, 6 do
   for x = 1, 6 do
      local edge = (x >= 2 and x <= 4 and y >= 2 and y <= 5) and (x == 2 or x == 4 or y == 2 or y == 5)
      if edge then on = on + 1 end
      h.check((r[1][y][x] == 1) == edge and math.abs(r[3][y][x] - (edge and 128 / 255 or 0)) < 1e-6,
         'rect pixel ' .. y .. ',' .. x)
   end
end
h.check(on == 10, 'ten outline pixels')
local rb = image.drawRect(torch.ByteTensor(3, 6, 6):zero(), 1, 1, 6, 6, { lineWidth = 3, inplace = true })
h.check(rb[1][1][1] == 255 and rb[1][3][3] == 0, 'wide outline in bytes')

-- drawText: 'A' is 0x7C 0x12 0x11 0x12 0x7C in the 5x7 font (bit 0 the top row).
local t = image.drawText(torch.zeros(3, 10, 10), 'A', 2, 1, { color = { 255, 255, 255 } })
local cols = { 0x7C, 0x12, 0x11, 0x12, 0x7C }
for i = 1, 5 do
   for j = 0, 7 do
      local set = math.floor(cols[i] / 2 ^ j) % 2 == 1
      h.check((t[2][1 + j + 1][2 + i] == 1) == set, 'A pixel ' .. i .. ',' .. j)
   end
end
local big = image.drawText(torch.zeros(3, 20, 20), 'A', 0, 0, { size = 2, bg = { 0, 0, 255 } })
h.check(big[3][1][1] == 1 and big[1][1][1] == 0 and big[1][5][1] == 1, 'size 2 with a background')
h.check(image.drawText(torch.zeros(3, 4, 4), '   ', 1, 1):sum() == 0, 'blank text draws nothing')

-- display without a screen: a notice, no error.
h.check(image.display(torch.rand(3, 4, 4)) == nil, 'display returns nil')
h.check(image.display{ image = { torch.rand(3, 4, 4), torch.rand(3, 4, 4) }, legend = 'two' } == nil,
   'display of a list')

h.done()
