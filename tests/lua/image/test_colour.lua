-- image's colour functions against hand-worked values and plain-Lua formulas: YUV, Y, HSV, HSL,
-- Lab, normalised RGB, jet maps, colour maps and the gaussian/Laplacian kernels.
--   th test_colour.lua

require 'image'
local h = dofile('helpers.lua')

local function pixels(list)
   -- {{r, g, b}, ...} as a 3 x 1 x n image
   local t = torch.DoubleTensor(3, 1, #list)
   for i, p in ipairs(list) do
      for k = 1, 3 do t[k][1][i] = p[k] end
   end
   return t
end

local rgb = pixels{ { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 }, { 1, 1, 1 }, { 0.2, 0.4, 0.6 }, { 0.5, 0.5, 0.5 } }

-- YUV and Y
local yuv = image.rgb2yuv(rgb)
h.near(yuv[1], torch.DoubleTensor{ { 0.299, 0.587, 0.114, 1, 0.2 * 0.299 + 0.4 * 0.587 + 0.6 * 0.114, 0.5 } }, 1e-12, 'Y')
h.check(math.abs(yuv[2][1][1] + 0.14713) < 1e-12, 'U of red')
h.check(math.abs(yuv[3][1][1] - 0.615) < 1e-12 and math.abs(yuv[2][1][3] - 0.436) < 1e-12, 'U and V of red, blue')
h.near(image.yuv2rgb(yuv), rgb, 2e-4, 'yuv2rgb inverts rgb2yuv')
h.near(image.rgb2y(rgb), yuv:narrow(1, 1, 1), 1e-12, 'rgb2y is the Y of YUV')
h.near(image.rgb2y(torch.FloatTensor{ { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } } }:transpose(1, 3)),
   torch.FloatTensor{ { { 0.299 }, { 0.587 }, { 0.114 } } }, 1e-6, 'rgb2y of a transposed view')

-- HSV and HSL: known values, then round trips.
local hsv = image.rgb2hsv(rgb)
h.near(hsv:select(3, 1), torch.DoubleTensor{ { 0 }, { 1 }, { 1 } }, 1e-12, 'hsv of red')
h.near(hsv:select(3, 2), torch.DoubleTensor{ { 1 / 3 }, { 1 }, { 1 } }, 1e-12, 'hsv of green')
h.near(hsv:select(3, 5), torch.DoubleTensor{ { 7 / 12 }, { 2 / 3 }, { 0.6 } }, 1e-12, 'hsv of (.2, .4, .6)')
local hsl = image.rgb2hsl(rgb)
h.near(hsl:select(3, 3), torch.DoubleTensor{ { 2 / 3 }, { 1 }, { 0.5 } }, 1e-12, 'hsl of blue')
h.near(hsl:select(3, 6), torch.DoubleTensor{ { 0 }, { 0 }, { 0.5 } }, 1e-12, 'hsl of grey')
h.near(hsl:select(3, 5), torch.DoubleTensor{ { 7 / 12 }, { 0.5 }, { 0.4 } }, 1e-12, 'hsl of (.2, .4, .6)')
local lena = image.lena()
-- Under a float default type (test_rotate.lua of torch/image sets one) the test images are made
-- in it.
torch.setdefaulttensortype('torch.FloatTensor')
local flena, ffabio = image.lena(), image.fabio()
torch.setdefaulttensortype('torch.DoubleTensor')
h.check(torch.type(flena) == 'torch.FloatTensor', 'lena in the default type')
h.check(torch.type(ffabio) == 'torch.FloatTensor', 'fabio in the default type')
h.near(flena:double(), lena, 1e-6, 'lena the same picture in float')
h.near(image.hsv2rgb(image.rgb2hsv(lena)), lena, 1e-6, 'hsv round trip')
h.near(image.hsl2rgb(image.rgb2hsl(lena)), lena, 1e-6, 'hsl round trip')
local bytes = lena:clone():mul(255):round():byte()
h.near(image.hsv2rgb(image.rgb2hsv(bytes)), bytes, 3, 'hsv round trip in bytes')
h.near(image.rgb2hsv(bytes), image.rgb2hsv(bytes:double():div(255)):mul(255), 1, 'hsv of bytes = of floats x 255')

-- Lab: white is L 100, a = b = 0; black is 0; round trip.
local lab = image.rgb2lab(rgb)
h.check(math.abs(lab[1][1][4] - 100) < 1e-3 and math.abs(lab[2][1][4]) < 1e-2 and math.abs(lab[3][1][4]) < 1e-2,
   'Lab of white')
h.near(image.lab2rgb(image.rgb2lab(lena)), lena, 1e-4, 'lab round trip')
h.near(image.lab2rgb(image.rgb2lab(lena:float())), lena:float(), 1e-4, 'lab round trip in floats')

-- Normalised RGB.
local n = image.rgb2nrgb(rgb)
h.check(math.abs(n[1][1][5] - 0.2 / (1.2 + 1e-6)) < 1e-12, 'rgb2nrgb')

-- jet maps: y2jet of levels 1..10 is jetColormap(10).
local jet = image.jetColormap(10)
h.near(image.y2jet(torch.DoubleTensor{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 })[{ {}, 1, {} }]:t(), jet, 1e-12, 'y2jet')
h.near(image.y2jet(torch.ByteTensor{ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 })[{ {}, 1, {} }]:t(),
   jet:clone():mul(255):round(), 0, 'y2jet of bytes')
for i = 1, 10 do
   local v = 4 * i / 10
   h.check(jet[i][1] == math.max(math.min(v - 1.5, -v + 4.5, 1), 0), 'jet red ' .. i)
end
local cm = image.colormap(8)
h.check(cm:size(1) == 8 and cm:size(2) == 3, 'colormap size')
h.near(cm[1], torch.DoubleTensor{ 0.65, 0.35, 0.35 }, 1e-12, 'colormap first colour (hue 0, saturation .3)')
h.check(cm:min() >= 0 and cm:max() <= 1, 'colormap in [0, 1]')

-- Kernels against their formulas.
local g = image.gaussian{ width = 7, height = 5, sigma_horz = 0.3, sigma_vert = 0.2, mean_horz = 0.4, amplitude = 2 }
for i = 1, 5 do
   for j = 1, 7 do
      local du = (j - (0.4 * 7 + 0.5)) / (0.3 * 7)
      local dv = (i - (0.5 * 5 + 0.5)) / (0.2 * 5)
      h.check(math.abs(g[i][j] - 2 * math.exp(-(du * du + dv * dv) / 2)) < 1e-12, 'gaussian ' .. i .. ',' .. j)
   end
end
h.check(math.abs(image.gaussian{ size = 9, normalize = true }:sum() - 1) < 1e-12, 'normalized gaussian sums to 1')
h.check(image.gaussian(3):size(1) == 3, 'gaussian(size)')
local gb = image.gaussian{ amplitude = 1000, tensor = torch.ByteTensor(5, 5) }
local gf = image.gaussian{ amplitude = 1000, tensor = torch.FloatTensor(5, 5) }
h.near(gb, gf:clone():round():clamp(0, 255), 0, 'byte gaussian rounds and saturates')
local g1 = image.gaussian1D{ size = 5, sigma = 0.2 }
for i = 1, 5 do
   h.check(math.abs(g1[i] - math.exp(-(((i - 3) / 1) ^ 2) / 2)) < 1e-12, 'gaussian1D ' .. i)
end
local l = image.laplacian{ size = 5 }
local lc = l[3][3]
h.check(math.abs(lc - 1) < 1e-12, 'laplacian centre is the amplitude')
h.check(l[1][1] < lc, 'laplacian falls off')

h.done()
