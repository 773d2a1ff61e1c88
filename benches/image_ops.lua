-- image's speed beside benches/image_pillow.py (Pillow, OpenCV), on the files it writes:
--   python3 benches/image_pillow.py /tmp/imgbench && th benches/image_ops.lua /tmp/imgbench
-- One line per operation: name, milliseconds (best of several runs), one thread.

require 'image'
torch.setnumthreads(1)

local dir = arg[1] or '/tmp/imgbench'
local jpg, png = dir .. '/bench.jpg', dir .. '/bench.png'

local function best(f, runs)
   local t = torch.Timer()
   local min = math.huge
   for _ = 1, runs or 7 do
      -- The last run's result goes now, untimed, as Python's peers free theirs at once.
      collectgarbage()
      t:reset()
      f()
      min = math.min(min, t:time().real)
   end
   return min * 1000
end

local rows = {}
local function row(name, ms) rows[#rows + 1] = { name, ms } end

row('load JPEG', best(function() image.load(jpg, 3, 'byte') end))
row('load JPEG float', best(function() image.load(jpg, 3, 'float') end))
row('load PNG', best(function() image.load(png, 3, 'byte') end))
local byte = image.load(png, 3, 'byte')
local img = byte:float():div(255)
row('save JPEG', best(function() image.saveJPG(dir .. '/ours.jpg', byte) end))
row('save PNG', best(function() image.savePNG(dir .. '/ours.png', byte) end, 3))
row('scale bilinear 224x224', best(function() image.scale(img, 224, 224, 'bilinear') end))
row('scale bicubic 224x224', best(function() image.scale(img, 224, 224, 'bicubic') end))
row('scale bilinear bytes', best(function() image.scale(byte, 224, 224, 'bilinear') end))
row('rotate bilinear', best(function() image.rotate(img, 0.3, 'bilinear') end))
row('rgb2yuv', best(function() image.rgb2yuv(img) end))
local k = image.gaussian(7):float()
row('gaussian 7x7 convolve', best(function() image.convolve(img, k, 'same') end))
local tiles = {}
for i = 1, 64 do tiles[i] = img:narrow(2, (i - 1) * 8 + 1, 32):narrow(3, (i - 1) * 8 + 1, 32) end
row('toDisplayTensor 64', best(function() image.toDisplayTensor{ input = tiles, nrow = 8, padding = 1 } end))

for _, r in ipairs(rows) do
   print(string.format('%-24s ours %8.2f', r[1], r[2]))
end
