-- Colour: conversions between RGB and YUV, Y, HSL, HSV, Lab and normalised RGB, each as
-- ([dst,] src); jet heat maps of label images, colour maps, gaussian and Laplacian kernels.

return function(image, lib, util)
   local fail = util.fail

   local function args(fn, ...)
      local n, a = select('#', ...), { ... }
      if n == 2 then return a[1], a[2] end
      if n == 1 then return nil, a[1] end
      util.usage(fn, fn .. '([dst,] src)')
   end

   local function rgbInput(fn, src)
      if not torch.isTensor(src) or src:dim() ~= 3 or src:size(1) < 3 then
         fail(fn, 'expected a 3xHxW image')
      end
   end

   -- A conversion done by the native kernel `native(src, dst)`.
   local function converter(name, native)
      local fn = 'image.' .. name
      return function(...)
         local dst, src = args(fn, ...)
         rgbInput(fn, src)
         dst = dst or src.new()
         dst:resizeAs(src)
         native(src, dst)
         return dst
      end
   end
   image.rgb2hsl = converter('rgb2hsl', lib.rgb2hsl)
   image.hsl2rgb = converter('hsl2rgb', lib.hsl2rgb)
   image.rgb2hsv = converter('rgb2hsv', lib.rgb2hsv)
   image.hsv2rgb = converter('hsv2rgb', lib.hsv2rgb)
   image.rgb2lab = converter('rgb2lab', lib.rgb2lab)
   image.lab2rgb = converter('lab2rgb', lib.lab2rgb)

   -- A linear map of the three channels: out[i] = sum_j m[i][j] * in[j] (plus in[1] when
   -- m.identity: YUV's Y is in every RGB channel), summed as torch/image sums its tensors.
   local function linear(name, m)
      local fn = 'image.' .. name
      local flat = {}
      for i = 1, 3 do
         for j = 1, 3 do flat[#flat + 1] = m[i][j] end
      end
      return function(...)
         local dst, src = args(fn, ...)
         rgbInput(fn, src)
         dst = dst or src.new()
         dst:resizeAs(src)
         if torch.type(src) ~= 'torch.ByteTensor' then
            lib.matrix3(src, dst, flat, m.identity or false)
            return dst
         end
         -- Bytes: the tensor sums, whose coefficients a ByteTensor truncates, as torch/image's do.
         local tmp = dst == src and src:clone() or src
         for i = 1, 3 do
            local out = dst[i]
            if m.identity then out:copy(tmp[1]) else out:zero() end
            for j = 1, 3 do
               if m[i][j] ~= 0 then out:add(m[i][j], tmp[j]) end
            end
         end
         return dst
      end
   end
   image.rgb2yuv = linear('rgb2yuv', {
      { 0.299, 0.587, 0.114 },
      { -0.14713, -0.28886, 0.436 },
      { 0.615, -0.51499, -0.10001 },
   })
   image.yuv2rgb = linear('yuv2rgb', {
      identity = true,
      { 0, 0, 1.13983 },
      { 0, -0.39465, -0.58060 },
      { 0, 2.03211, 0 },
   })

   -- rgb2y([dst,] src): 1 x H x W.
   function image.rgb2y(...)
      local dst, src = args('image.rgb2y', ...)
      rgbInput('image.rgb2y', src)
      dst = dst or src.new()
      if dst == src then dst = src.new() end
      dst:resize(1, src:size(2), src:size(3))
      lib.rgb2y(src, dst[1])
      return dst
   end

   -- rgb2nrgb([dst,] src): each channel over the pixel's sum (plus 1e-6).
   function image.rgb2nrgb(...)
      local dst, src = args('image.rgb2nrgb', ...)
      rgbInput('image.rgb2nrgb', src)
      local sum = src[1]:clone():add(src[2]):add(src[3]):add(1e-6)
      dst = dst or src.new()
      dst:resizeAs(src):copy(src)
      for k = 1, 3 do dst[k]:cdiv(sum) end
      return dst
   end

   -- y2jet([dst,] labels): a label image (values 1..L; H x W, 1 x H x W or a row) as a 3 x H x W
   -- jet heat map of L colours.
   function image.y2jet(...)
      local dst, src = args('image.y2jet', ...)
      if not torch.isTensor(src) then fail('image.y2jet', 'a label tensor expected') end
      if src:dim() == 3 and src:size(1) == 1 then src = src[1] end
      if src:dim() == 1 then src = src:view(1, src:size(1)) end
      if src:dim() ~= 2 then fail('image.y2jet', 'expected a HxW label image') end
      dst = dst or src.new()
      local levels = src:max()
      local map = image.jetColormap(levels)
      if torch.type(src) == 'torch.ByteTensor' then
         map = map:mul(255):round():clamp(0, 255):byte()
      else
         map = map:typeAs(src)
      end
      local labels = src - 1
      dst:resize(3, src:size(1), src:size(2))
      lib.colorize(dst, labels, map)
      return dst
   end

   -- colorize(labels[, colormap]): 0-based labels through a colour map (random colours when
   -- none is given), as torch/image's C colorize.
   function image.colorize(labels, map, dst)
      if not torch.isTensor(labels) or labels:dim() ~= 2 then fail('image.colorize', 'expected a HxW label image') end
      if map == nil or map:nElement() == 0 then
         map = labels.new(labels:max() + 1, 3)
         map:copy(torch.rand(map:size()):mul(torch.type(labels) == 'torch.ByteTensor' and 255 or 1))
      end
      dst = dst or labels.new()
      dst:resize(map:size(2), labels:size(1), labels:size(2))
      lib.colorize(dst, labels, map:typeAs(labels))
      return dst
   end

   -- colormap(n): n RGB colours spread around the hue circle (n x 3).
   function image.colormap(n)
      local map = torch.Tensor(n, 3)
      local hueStep, satStep = 39, 1 / 9
      for i = 1, n do
         local hue = math.fmod((i - 1) * hueStep, 360)
         local sat = math.fmod((i - 1) * satStep, 0.7) + 0.3
         local light = 0.5
         local chroma = (1 - math.abs(2 * light - 1)) * sat
         local h6 = hue / 60
         local x = chroma * (1 - math.abs(math.fmod(h6, 2) - 1))
         local sector = math.floor(h6)
         local rgb = ({
            [0] = { chroma, x, 0 }, { x, chroma, 0 }, { 0, chroma, x },
            { 0, x, chroma }, { x, 0, chroma }, { chroma, 0, x },
         })[math.min(sector, 5)]
         local m = light - chroma / 2
         for k = 1, 3 do map[i][k] = rgb[k] + m end
      end
      return map
   end

   -- jetColormap(n): n colours from blue through green to red (n x 3).
   function image.jetColormap(n)
      local map = torch.Tensor(n, 3)
      for i = 1, n do
         local v = 4 * i / n
         map[i][1] = math.max(math.min(v - 1.5, -v + 4.5, 1), 0)
         map[i][2] = math.max(math.min(v - 0.5, -v + 3.5, 1), 0)
         map[i][3] = math.max(math.min(v + 0.5, -v + 2.5, 1), 0)
      end
      return map
   end

   local kernelArgs = {
      { arg = 'size', type = 'number', help = 'kernel size (size x size)', default = 3 },
      { arg = 'sigma', type = 'number', help = 'sigma (horizontal and vertical)', default = 0.25 },
      { arg = 'amplitude', type = 'number', help = 'amplitude (the largest value)', default = 1 },
      { arg = 'normalize', type = 'number', help = 'make the kernel sum to 1', default = false },
      { arg = 'width', type = 'number', help = 'kernel width', defaulta = 'size' },
      { arg = 'height', type = 'number', help = 'kernel height', defaulta = 'size' },
      { arg = 'sigma_horz', type = 'number', help = 'horizontal sigma', defaulta = 'sigma' },
      { arg = 'sigma_vert', type = 'number', help = 'vertical sigma', defaulta = 'sigma' },
      { arg = 'mean_horz', type = 'number', help = 'horizontal mean', default = 0.5 },
      { arg = 'mean_vert', type = 'number', help = 'vertical mean', default = 0.5 },
   }

   local function kernelDefs(sigma, withTensor)
      local defs = {}
      for i, d in ipairs(kernelArgs) do
         defs[i] = d
         if d.arg == 'sigma' then defs[i] = { arg = 'sigma', type = 'number', help = d.help, default = sigma } end
      end
      if withTensor then
         defs[#defs + 1] = { arg = 'tensor', type = 'torch.Tensor', help = 'result tensor (its size is used)' }
      end
      return unpack(defs)
   end

   -- gaussian{size=3, sigma=.25, amplitude=1, normalize=false, width, height, sigma_horz,
   -- sigma_vert, mean_horz=.5, mean_vert=.5, tensor}: a height x width gaussian kernel.
   function image.gaussian(...)
      local o = dok.unpack({ ... }, 'image.gaussian', 'returns a 2D gaussian kernel', kernelDefs(0.25, true))
      local g = o.tensor
      if g then
         if g:dim() ~= 2 then fail('image.gaussian', 'expecting 2D tensor') end
         if g:nElement() == 0 then fail('image.gaussian', 'expecting non-empty tensor') end
      else
         g = torch.Tensor(o.height, o.width)
      end
      lib.gaussian(g, o.amplitude, o.normalize, o.sigma_horz, o.sigma_vert, o.mean_horz, o.mean_vert)
      return g
   end

   -- gaussian1D{size=3, sigma=.25, amplitude=1, normalize=false, mean=.5, tensor}
   function image.gaussian1D(...)
      local o = dok.unpack({ ... }, 'image.gaussian1D', 'returns a 1D gaussian kernel',
         { arg = 'size', type = 'number', help = 'kernel size', default = 3 },
         { arg = 'sigma', type = 'number', help = 'sigma', default = 0.25 },
         { arg = 'amplitude', type = 'number', help = 'amplitude (the largest value)', default = 1 },
         { arg = 'normalize', type = 'number', help = 'make the kernel sum to 1', default = false },
         { arg = 'mean', type = 'number', help = 'mean', default = 0.5 },
         { arg = 'tensor', type = 'torch.Tensor', help = 'result tensor (its size is used)' })
      local g, size = o.tensor, o.size
      if g then
         if g:dim() ~= 1 then fail('image.gaussian1D', 'expecting 1D tensor') end
         if g:nElement() == 0 then fail('image.gaussian1D', 'expecting non-empty tensor') end
         size = g:size(1)
      else
         g = torch.Tensor(size)
      end
      local centre = o.mean * size + 0.5
      for i = 1, size do
         g[i] = o.amplitude * math.exp(-(((i - centre) / (o.sigma * size)) ^ 2) / 2)
      end
      if o.normalize then g:div(g:sum()) end
      return g
   end

   -- laplacian{...}: gaussian's arguments (sigma = .1, no tensor); a Laplacian of gaussian.
   function image.laplacian(...)
      local o = dok.unpack({ ... }, 'image.laplacian', 'returns a 2D Laplacian kernel', kernelDefs(0.1, false))
      local w, h = o.width, o.height
      local cx, cy = o.mean_horz * w + 0.5, o.mean_vert * h + 0.5
      local k = torch.Tensor(h, w)
      for i = 1, h do
         for j = 1, w do
            -- torch/image pairs the row index with the horizontal parameters.
            local xsq = (((i - cx) / (o.sigma_horz * w)) ^ 2) / 2
            local ysq = (((j - cy) / (o.sigma_vert * h)) ^ 2) / 2
            k[i][j] = (1 - (xsq + ysq)) * o.amplitude * math.exp(-(xsq + ysq))
         end
      end
      if o.normalize then k:div(k:sum()) end
      return k
   end
end
