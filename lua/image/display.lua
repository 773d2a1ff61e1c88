-- Drawing and display: text and rectangles drawn into images, grids of images
-- (toDisplayTensor), display (a window needs qt, which th has not: it says so and goes on),
-- and the test images lena() and fabio().

return function(image, lib, util)
   local fail = util.fail

   local function rgbImage(fn, src)
      if not (torch.isTensor(src) and src:dim() == 3 and src:size(1) == 3) then
         fail(fn, 'input image has to be a 3D tensor of shape 3 x H x W')
      end
   end

   -- drawText(src, text, x, y[, {color = {255, 0, 0}, bg, size = 1, wrap = true, inplace}])
   function image.drawText(src, text, x, y, opts)
      opts = opts or {}
      rgbImage('image.drawText', src)
      local out = opts.inplace and src or src:clone()
      if not text or text:gsub('%s*$', '') == '' then return out end
      local color = opts.color or { 255, 0, 0 }
      local bg = opts.bg or { -1, -1, -1 }
      local wrap = opts.wrap == nil or opts.wrap
      lib.text(out, text, x or 1, y or 1, opts.size or 1, color[1], color[2], color[3],
         bg[1], bg[2], bg[3], wrap and 1 or 0)
      return out
   end

   -- drawRect(src, x1, y1, x2, y2[, {color = {255, 0, 0}, lineWidth = 1, inplace}])
   function image.drawRect(src, x1, y1, x2, y2, opts)
      opts = opts or {}
      rgbImage('image.drawRect', src)
      local out = opts.inplace and src or src:clone()
      if not (x1 and x2 and y1 and y2) then return out end
      local color = opts.color or { 255, 0, 0 }
      lib.drawRect(out, x1, y1, x2, y2, opts.lineWidth or 1, color[1], color[2], color[3])
      return out
   end

   -- toDisplayTensor{input, padding = 0, nrow = 6, scaleeach = false, min, max, symmetric = false,
   -- saturate = true}: a list or batch of images laid out on one grid image, scaled to [0, 1].
   function image.toDisplayTensor(...)
      local o = dok.unpack({ ... }, 'image.toDisplayTensor',
         'given a pack of tensors, returns a single tensor that contains a grid of all in the pack',
         { arg = 'input', type = 'torch.Tensor | table', help = 'input (HxW or KxHxW or Kx3xHxW or list)', req = true },
         { arg = 'padding', type = 'number', help = 'number of padding pixels between images', default = 0 },
         { arg = 'nrow', type = 'number', help = 'number of images per row', default = 6 },
         { arg = 'scaleeach', type = 'boolean', help = 'individual scaling for list of images', default = false },
         { arg = 'min', type = 'number', help = 'lower-bound for range' },
         { arg = 'max', type = 'number', help = 'upper-bound for range' },
         { arg = 'symmetric', type = 'boolean', help = 'symmetric dynamic range (for filters)', default = false },
         { arg = 'saturate', type = 'boolean', help = 'saturate (when min/max are inside the range)', default = true })
      local input, padding, nrow = o.input, o.padding, o.nrow
      local range = { min = o.min, max = o.max, symm = o.symmetric, saturate = o.saturate, inplace = true }
      local function normalize(t)
         range.tensor = t
         return image.minmax(range)
      end
      local packed = torch.Tensor()
      if type(input) == 'table' then
         local first = input[1]
         local nd = first:dim()
         packed:resize(#input, nd == 2 and 1 or first:size(1), first:size(nd - 1), first:size(nd))
         for i, img in ipairs(input) do packed[i]:copy(img) end
      elseif torch.isTensor(input) then
         packed:resize(input:size()):copy(input)
      else
         fail('image.toDisplayTensor', 'Unknown or incompatible type of input: ' .. torch.type(input))
      end
      local d = packed:dim()
      local colour = d == 4 and (packed:size(2) == 3 or packed:size(2) == 1)
      local single = d == 2 or (d == 3 and (packed:size(1) == 1 or packed:size(1) == 3))
      if single then return normalize(packed) end
      if not colour and d ~= 3 then
         fail('image.toDisplayTensor', 'packed must be a HxW or KxHxW or Kx3xHxW tensor, or a list of tensors')
      end
      if o.scaleeach then
         for i = 1, packed:size(1) do normalize(packed[i]) end
      end
      local count = packed:size(1)
      local across = math.min(nrow, count)
      local down = math.ceil(count / across)
      local h, w = packed:size(d - 1) + padding, packed:size(d) + padding
      local grid = colour and torch.Tensor(packed:size(2), h * down, w * across)
         or torch.Tensor(h * down, w * across)
      grid:fill(packed:max())
      local rows, cols = grid:dim() - 1, grid:dim()
      for k = 1, count do
         local y, x = math.floor((k - 1) / across), (k - 1) % across
         grid:narrow(rows, math.floor(y * h + 1 + padding / 2), math.floor(h - padding))
             :narrow(cols, math.floor(x * w + 1 + padding / 2), math.floor(w - padding))
             :copy(packed[k])
      end
      if not o.scaleeach then normalize(grid) end
      return grid
   end

   local warned = false

   -- display{image, zoom, min, max, legend, win, x, y, scaleeach, gui, offscreen, padding,
   -- symmetric, nrow, saturate}: needs qt's windows; without them it says so (once) and returns
   -- nil, so a script that also displays goes on.
   function image.display(...)
      local o = dok.unpack({ ... }, 'image.display', 'displays a single image, with optional saturation/zoom',
         { arg = 'image', type = 'torch.Tensor | table', help = 'image (HxW or KxHxW or Kx3xHxW or list)', req = true },
         { arg = 'zoom', type = 'number', help = 'display zoom', default = 1 },
         { arg = 'min', type = 'number', help = 'lower-bound for range' },
         { arg = 'max', type = 'number', help = 'upper-bound for range' },
         { arg = 'legend', type = 'string', help = 'legend', default = 'image.display' },
         { arg = 'win', type = 'qt window', help = 'window descriptor' },
         { arg = 'x', type = 'number', help = 'x offset (only if win is given)', default = 0 },
         { arg = 'y', type = 'number', help = 'y offset (only if win is given)', default = 0 },
         { arg = 'scaleeach', type = 'boolean', help = 'individual scaling for list of images', default = false },
         { arg = 'gui', type = 'boolean', help = 'zoomable window', default = true },
         { arg = 'offscreen', type = 'boolean', help = 'offscreen rendering', default = false },
         { arg = 'padding', type = 'number', help = 'number of padding pixels between images', default = 0 },
         { arg = 'symmetric', type = 'boolean', help = 'symmetric dynamic range', default = false },
         { arg = 'nrow', type = 'number', help = 'number of images per row', default = 6 },
         { arg = 'saturate', type = 'boolean', help = 'saturate', default = true })
      -- The grid is made all the same: bad input fails as it would with a screen.
      local grid = image.toDisplayTensor{ input = o.image, padding = o.padding, nrow = o.nrow,
         saturate = o.saturate, scaleeach = o.scaleeach, min = o.min, max = o.max,
         symmetric = o.symmetric }
      -- In a notebook (th --jupyter-kernel) the grid is shown inline, as a PNG.
      if package.loaded['itorch.kernel'] then
         require('itorch')._showTensor(grid, o.zoom)
         return nil
      end
      if not warned then
         warned = true
         io.stderr:write('image.display: no display here (th has no qt windows); "' .. o.legend
            .. '" not shown. Save it with image.save(file, image.toDisplayTensor{...}) instead.\n')
      end
      return nil
   end

   function image.window()
      fail('image.window', 'needs qt (qlua) windows, which th does not have')
   end

   -- A smooth synthetic picture in [0, 1], quantised to steps of 1/255 as a decoded 8-bit file
   -- is: waves, a radial ramp and a diagonal ramp, with a bright disc and bars, its colours
   -- mixed 40% towards their grey as a photograph's are (fully saturated ramps would make
   -- torch/image's byte-versus-float colour tests land on exact rounding ties).
   -- Made in double precision whatever the default type, and given in the default type, as a
   -- photograph loaded from a file would be (the same picture either way).
   local function testPicture(channels, h, w)
      local D = torch.DoubleTensor
      local y = torch.linspace(D(), 0, 1, h):view(h, 1):expand(h, w):contiguous()
      local x = torch.linspace(D(), 0, 1, w):view(1, w):expand(h, w):contiguous()
      local radius = (x - 0.5):pow(2):add((y - 0.45):pow(2)):sqrt()
      local planes = {
         (x * 12.566 + y * 5.0):sin():mul(0.3):add(0.5):add(radius * -0.3),
         radius:clone():mul(-1.3):add(0.9),
         (y * 0.7):add(x * 0.25):add((x * 30):sin():mul(0.05)),
      }
      local disc = radius:lt(0.12):double():mul(0.35)
      local bars = (y * 40):sin():gt(0.85):double():cmul(x:lt(0.2):double()):mul(0.5)
      local rgb = D(3, h, w)
      for c = 1, 3 do rgb[c]:copy(planes[c]:add(disc):add(bars)) end
      local grey = rgb:mean(1)[1]
      local img = D(channels, h, w)
      for c = 1, channels do
         local p = channels == 1 and grey or rgb[c]:mul(0.6):add(0.4, grey)
         img[c]:copy(p:clamp(0, 1):mul(255):round():mul(1 / 255))
      end
      return img:type(torch.getdefaulttensortype())
   end

   -- lena(): a 3 x 512 x 512 test image; fabio(): a 257 x 271 grey one (H x W, as torch/image's
   -- fabio() loads its photograph with depth 1). torch/image ships
   -- photographs for these, which are not ours to ship: these are generated pictures of the same
   -- sizes and types.
   function image.lena()
      return testPicture(3, 512, 512)
   end

   function image.fabio()
      return testPicture(1, 257, 271)[1]
   end
end
