-- image's errors: a missing, truncated, corrupt, empty or oversized (decompression bomb) file,
-- a wrong depth or type, each raise a Lua error that names the function and the file.
--   th test_errors.lua

require 'image'
local h = dofile('helpers.lua')
local F = h.fixtures

h.fails(function() image.load(F .. 'missing.png') end, 'missing file', 'image.load', 'missing.png')
h.fails(function() image.loadJPG(F .. 'missing.jpg') end, 'missing JPEG', 'image.loadJPG', 'missing.jpg')
h.fails(function() image.getSize(F .. 'missing.ppm') end, 'missing file size', 'image.getSize', 'missing.ppm')

for _, case in ipairs{
   { 'truncated.png', 'Error during read_image' },
   { 'badheader.png', 'Error during init_io' },
   { 'bomb.png', 'more than' },
   { 'empty.png', 'empty.png' },
   { 'truncated.jpg', 'truncated' },
   { 'garbage.jpg', 'garbage.jpg' },
   { 'bomb.jpg', 'more than' },
   { 'truncated.ppm', 'corrupted file' },
   { 'bomb.ppm', 'more than' },
   { 'empty.pgm', 'empty' },
} do
   local name, says = case[1], case[2]
   h.fails(function() image.load(F .. name) end, name, 'image.load: ', name, says)
end
h.fails(function() image.loadPPM(F .. 'bitmap.pbm') end, 'PBM', 'image.loadPPM', 'unsupported magic number')
h.fails(function() image.load(F .. 'noextension') end, 'no extension', 'unable to determine image type for file')
h.fails(function() image.load(F .. 'unknown.bmp') end, 'unknown type', 'unknown image type: bmp')
h.fails(function() image.loadPNG(F .. 'rgb8.ppm') end, 'PNG reader on a PPM', 'image.loadPNG')
h.fails(function() image.loadPNG(F .. 'rgb.ppm') end, 'not a PNG', 'not recognized as a PNG file')

-- Arguments.
h.fails(function() image.load(F .. 'rgb8.png', 2) end, 'depth 2', 'image.load', 'depth must be 1 or 3')
h.fails(function() image.load(F .. 'ga8.png', 3) end, 'grey+alpha to 3', 'image.load', 'channels')
h.fails(function() image.load(F .. 'rgb8.png', nil, 'int') end, 'tensortype', "'byte', 'float' or 'double'")
h.fails(function() image.load() end, 'no file name', 'image.load')
h.fails(function() image.decompressJPG(torch.FloatTensor(10)) end, 'float buffer', 'image.decompressJPG', 'ByteTensor')
h.fails(function() image.decompressJPG(torch.ByteTensor(1000):random(0, 255)) end, 'garbage buffer',
   'image.decompressJPG')
h.fails(function() image.decompressPNG(torch.ByteTensor(10):zero()) end, 'zero buffer', 'image.decompressPNG')
h.fails(function() image.decompress(torch.ByteTensor(10):zero()) end, 'neither', 'image.decompress')
h.fails(function() image.decompress(torch.ByteTensor()) end, 'empty buffer', 'image.decompress')
h.fails(function() image.compressJPG(torch.ByteTensor(2, 4, 4)) end, '2-channel JPEG', 'image.compressJPG',
   '1 or 3 channels')
h.fails(function() image.compressJPG(torch.ByteTensor(3, 4, 4), 101) end, 'quality', 'quality')
h.fails(function() image.compressPNG(torch.ByteTensor(2, 4, 4)) end, '2-channel PNG', 'Depth must be 1, 3 or 4')
h.fails(function() image.savePPM(h.tmp('x.ppm'), torch.ByteTensor(1, 4, 4)) end, 'PPM of one channel',
   'image.savePPM', '3xHxW')
h.fails(function() image.save(h.tmp('x.gif'), torch.ByteTensor(3, 4, 4)) end, 'save gif', 'unknown image type: gif')
h.fails(function() image.save('/nonexistent-dir/x.png', torch.ByteTensor(3, 4, 4)) end, 'unwritable',
   'image.savePNG', '/nonexistent-dir/x.png')
h.fails(function() image.savePNG(h.tmp('x.png'), torch.ByteTensor(3, 0, 4)) end, 'empty image', 'image.savePNG')
h.fails(function() image.scale(torch.IntTensor(3, 4, 4), 2, 2) end, 'int image', 'image.scale', 'not an image type')
h.fails(function() image.scale(torch.FloatTensor(3, 4, 4), 'big') end, 'bad size', 'could not find valid dest size')
h.fails(function() image.scale(torch.FloatTensor(3, 4, 4), 2, 2, 'cubic') end, 'bad mode', 'mode must be one of')
h.fails(function() image.crop(torch.FloatTensor(3, 4, 4), 1, 1, 9, 9) end, 'crop outside', 'crop goes outside')
h.fails(function() image.crop(torch.FloatTensor(3, 4, 4), 'middle', 2, 2) end, 'crop format', 'crop format')
h.fails(function() image.crop(torch.FloatTensor(3, 4, 4)) end, 'crop usage', 'image.crop', 'incorrect arguments')
h.fails(function() image.rotate(torch.FloatTensor(3, 4, 4), 1, 'cubic') end, 'rotate mode', 'simple | bilinear')
h.fails(function() image.warp(torch.FloatTensor(3, 4, 4), torch.FloatTensor(3, 4, 4)) end, 'warp field', 'flow field')
h.fails(function() image.rgb2lab(torch.ByteTensor(3, 2, 2)) end, 'lab of bytes', 'image.rgb2lab', 'ByteTensor')
h.fails(function() image.rgb2hsv(torch.FloatTensor(2, 2)) end, 'hsv of 2-D', 'image.rgb2hsv', '3xHxW')
h.fails(function() image.flip(torch.FloatTensor(2, 2), 3) end, 'flip dim', 'Bad flip dimension')
h.fails(function() image.convolve(torch.FloatTensor(4, 4), torch.FloatTensor(3, 3), 'middle') end, 'convolve mode',
   'full | valid | same')
h.fails(function() image.drawText(torch.FloatTensor(1, 4, 4), 'x', 1, 1) end, 'text on grey', '3 x H x W')
h.fails(function() image.window() end, 'window', 'image.window', 'qt')

-- Huge or odd numbers are no crash: text of a huge size, positions far off, NaN flows.
local canvas = torch.zeros(3, 8, 8)
image.drawText(canvas, 'ab', 1e300, -1e300, { size = 1e18, inplace = true })
image.drawRect(canvas, -1e300, 2, 1e300, 3, { lineWidth = 1e12, inplace = true })
h.check(canvas:size(1) == 3, 'huge drawing arguments')
h.check(image.translate(torch.ones(1, 4, 4), 1e300, 0):sum() == 0, 'translate far away')
local nan = torch.zeros(2, 4, 4):fill(0 / 0)
h.check(image.warp(torch.ones(1, 4, 4), nan, 'bicubic'):size(2) == 4, 'NaN flow field')
h.check(image.rotate(torch.ones(1, 4, 4), 0 / 0):size(2) == 4, 'NaN angle')

-- Nothing above left a broken state behind.
h.check(image.load(F .. 'rgb8.png'):size(1) == 3, 'loads still work')
h.done()
