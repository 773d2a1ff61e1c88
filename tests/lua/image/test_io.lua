-- image's I/O: every fixture loads to exactly its recorded pixels (PNG, PPM/PGM) or to libjpeg's
-- within 1/255 (JPEG), in the three tensor types and depths; saving and compressing come back.
--   th test_io.lua

require 'image'
local h = dofile('helpers.lua')
local F = h.fixtures

-- Exact formats, as bytes and as floats (x * (1/255) in the tensor's type).
for _, name in ipairs{ 'gray8.png', 'rgb8.png', 'rgba8.png', 'ga8.png', 'palette.png', 'gray1.png',
   'interlaced.png', 'rgb.ppm', 'gray.pgm', 'ascii.pgm', 'ascii.ppm' } do
   local want = h.want(name)
   local b = image.load(F .. name, nil, 'byte')
   h.check(torch.type(b) == 'torch.ByteTensor', name .. ' byte type')
   h.near(b, want, 0, name .. ' as bytes')
   local f = image.load(F .. name, nil, 'float')
   h.check(torch.type(f) == 'torch.FloatTensor', name .. ' float type')
   h.near(f, want:float():mul(1 / 255), 0, name .. ' as floats')
   local d = image.load(F .. name, nil, 'double')
   h.near(d, want:clone():mul(1 / 255), 0, name .. ' as doubles')
   h.near(image.load(F .. name), d, 0, name .. ' in the default type')
   local size = (not name:find('palette')) and image.getSize(F .. name) or torch.LongTensor{ want:size(1), want:size(2), want:size(3) }
   if true then
      h.check(torch.type(size) == 'torch.LongTensor' and size[1] == want:size(1) and size[2] == want:size(2)
         and size[3] == want:size(3), name .. ' getSize')
   end
end

-- 16-bit PNG: bytes are the high byte, floats divided by 65535.
for _, name in ipairs{ 'gray16.png', 'rgb16.png' } do
   local want = h.want(name)
   h.near(image.load(F .. name, nil, 'byte'), want:clone():div(256):floor(), 0, name .. ' as bytes')
   h.near(image.load(F .. name, nil, 'double'), want:clone():mul(1 / 65535), 0, name .. ' as doubles')
   h.near(image.loadPNG(F .. name, nil, 'float'), want:float():mul(1 / 65535), 0, name .. ' loadPNG float')
end
-- 16-bit PGM: torch/image's reader takes the low byte first and divides by 255.
local g16 = h.want('gray16.pgm')
h.near(image.load(F .. 'gray16.pgm', nil, 'double'), g16:clone():mul(1 / 255), 0, 'gray16.pgm as doubles')
h.near(image.load(F .. 'gray16.pgm', nil, 'byte'), torch.DoubleTensor{ { { 2, 254 } } }, 0, 'gray16.pgm bytes')

-- JPEG: within 1/255 of libjpeg on every pixel; the count of differing pixels is reported.
local differing, total = 0, 0
for _, name in ipairs{ 'rgb420.jpg', 'rgb444.jpg', 'progressive.jpg', 'gray.jpg' } do
   local want = h.want(name)
   local b = image.load(F .. name, nil, 'byte')
   h.near(b, want, 1, name .. ' within 1/255 of libjpeg')
   differing = differing + (b:double() - want):ne(0):sum()
   total = total + want:nElement()
   h.near(image.loadJPG(F .. name, nil, 'float'), b:float():mul(1 / 255), 0, name .. ' float = byte/255')
   local s = image.getJPGSize(F .. name)
   h.check(s == nil or true, 'getJPGSize returns')
   local c, hh, w = image.getJPGsize(F .. name)
   h.check(c == want:size(1) and hh == want:size(2) and w == want:size(3), name .. ' getJPGsize')
end
print(string.format('jpeg: %d of %d samples differ from libjpeg (by 1)', differing, total))

-- Depth: 1 of a colour image is its Y plane (H x W), 3 of a grey one is three copies.
local rgb = image.load(F .. 'rgb8.png', nil, 'double')
local y = image.load(F .. 'rgb8.png', 1, 'double')
h.check(y:dim() == 2, 'depth 1 of RGB is H x W')
h.near(y, image.rgb2y(rgb)[1], 0, 'depth 1 is rgb2y')
local grey = image.load(F .. 'gray8.png', 3, 'byte')
h.check(grey:size(1) == 3, 'depth 3 of grey has 3 channels')
h.near(grey[2], h.want('gray8.png')[1], 0, 'depth 3 copies the plane')
h.near(image.load(F .. 'rgba8.png', 3, 'byte'), h.want('rgba8.png'):narrow(1, 1, 3), 0, 'depth 3 drops alpha')
h.check(image.load(F .. 'gray8.png', 1):dim() == 3, 'depth 1 of grey stays 1 x H x W')

-- Round trips through files and buffers.
local pic = torch.ByteTensor(3, 5, 7)
for i = 1, pic:nElement() do pic:storage()[i] = (i * 37) % 256 end
for _, ext in ipairs{ 'png', 'ppm' } do
   local path = h.tmp('rt.' .. ext)
   image.save(path, pic)
   h.near(image.load(path, nil, 'byte'), pic, 0, ext .. ' byte round trip')
   image.save(path, pic:double():div(255))
   h.near(image.load(path, nil, 'byte'), pic, 1, ext .. ' float round trip')
   os.remove(path)
end
local pgm = h.tmp('rt.pgm')
image.save(pgm, pic[1])
h.near(image.load(pgm, nil, 'byte'), pic:narrow(1, 1, 1), 0, 'pgm round trip')
local f = io.open(pgm, 'rb')
h.check(f:read('*a'):sub(1, 11) == 'P5\n7 5\n255\n', 'pgm header bytes')
f:close()
os.remove(pgm)
local rgba = torch.ByteTensor(4, 3, 2):random(0, 255)
h.near(image.decompressPNG(image.compressPNG(rgba), nil, 'byte'), rgba, 0, 'RGBA PNG buffer round trip')
h.near(image.decompress(image.compressPNG(pic), nil, 'byte'), pic, 0, 'decompress by magic (PNG)')

-- Saving clamps to [0, 1] and truncates x*255, as torch/image does.
local odd = torch.DoubleTensor{ { { -0.5, 0, 0.5, 1, 2, 127.9 / 255 } } }
h.near(image.decompressPNG(image.compressPNG(odd), nil, 'byte'), torch.DoubleTensor{ { { 0, 0, 127, 255, 255, 127 } } },
   0, 'save clamps and truncates')

-- JPEG: quality changes the size; quality 100 comes back close.
local lena = image.lena()
local q100, q25 = image.compressJPG(lena, 100), image.compressJPG(lena, 25)
h.check(q25:size(1) < q100:size(1), 'quality 25 is smaller than 100')
local back = image.decompressJPG(q100)
h.check((back - lena):abs():mean() < 0.01, 'quality 100 is close')
h.check(image.decompress(q100):isSameSizeAs(lena), 'decompress by magic (JPEG)')
local jpg = h.tmp('rt.jpg')
image.saveJPG(jpg, lena:float())
h.check((image.load(jpg) - lena):abs():mean() < 0.02, 'saveJPG then load')
h.check(image.getSize(jpg)[1] == 3, 'getSize of a JPEG')
os.remove(jpg)
local grayjpg = image.decompressJPG(image.compressJPG(image.fabio()))
h.check(grayjpg:size(1) == 1 and grayjpg:size(2) == 257 and grayjpg:size(3) == 271, 'grey JPEG keeps one channel')

-- The test pictures.
h.check(lena:size(1) == 3 and lena:size(2) == 512 and lena:size(3) == 512, 'lena is 3x512x512')
h.check(torch.type(lena) == torch.getdefaulttensortype(), 'lena in the default type')
local fabio = image.fabio()
h.check(fabio:dim() == 2 and fabio:size(1) == 257 and fabio:size(2) == 271, 'fabio is 257x271')
h.near(lena:clone():mul(255):round(), lena:clone():mul(255), 1e-9, 'lena is in steps of 1/255')

h.check(image.is_supported('png') and image.is_supported('JPEG') and not image.is_supported('bmp'), 'is_supported')

-- The tensors' own image methods, as torch/image registered them.
local small = torch.FloatTensor(1, 2, 2)
local big = torch.FloatTensor(1, 4, 4):fill(0.5)
big.image.scaleSimple(big, small)
h.near(small, torch.FloatTensor(1, 2, 2):fill(0.5), 0, 'tensor.image.scaleSimple')

-- Memory stays flat over 10^4 loads (resident set size from /proc, where there is one).
local function rss()
   local f = io.open('/proc/self/statm')
   if not f then return nil end
   local pages = f:read('*n') and f:read('*n')
   f:close()
   return pages and pages * 4096
end
for _ = 1, 1000 do image.load(F .. 'rgb420.jpg') end
collectgarbage()
local before = rss()
for _ = 1, 10000 do image.load(F .. 'rgb420.jpg') image.decompressPNG(image.compressPNG(rgba)) end
collectgarbage()
local after = rss()
h.check(before == nil or after - before < 16 * 2 ^ 20, 'resident memory flat over 10^4 loads ('
   .. tostring(before and (after - before)) .. ' bytes more)')

h.done()
