-- Filtering: convolution ('valid', 'full', 'same'), range normalisation (minmax), local contrast
-- normalisation, binary erosion and dilation, gaussian and Laplacian pyramids.

return function(image, lib, util)
   local fail = util.fail

   -- convolve([dst,] src, kernel[, 'valid'|'full'|'same']): a 2-D kernel is applied to every
   -- channel of a 3-D image.
   function image.convolve(...)
      local n, a = select('#', ...), { ... }
      local dst, src, kernel, mode
      if n == 4 then
         dst, src, kernel, mode = a[1], a[2], a[3], a[4]
      elseif n == 3 and type(a[3]) == 'string' then
         src, kernel, mode = a[1], a[2], a[3]
      elseif n == 3 then
         dst, src, kernel = a[1], a[2], a[3]
      elseif n == 2 then
         src, kernel = a[1], a[2]
      else
         util.usage('image.convolve', "image.convolve([dst,] src, kernel[, 'valid'|'full'|'same'])")
      end
      if mode and mode ~= 'valid' and mode ~= 'full' and mode ~= 'same' then
         fail('image.convolve', 'mode has to be one of: full | valid | same')
      end
      local extent = (mode == 'full' or mode == 'same') and 'F' or 'V'
      if kernel:dim() == 2 and src:dim() == 3 then
         local k = src.new(src:size(1), kernel:size(1), kernel:size(2))
         for i = 1, src:size(1) do k[i]:copy(kernel) end
         kernel = k
      end
      if dst then
         torch.conv2(dst, src, kernel, extent)
      else
         dst = torch.conv2(src, kernel, extent)
      end
      if mode == 'same' then
         local cx = dst:dim()
         local cy = cx - 1
         local oy = math.ceil(kernel:size(cy) / 2)
         local ox = math.ceil(kernel:size(cx) / 2)
         dst = dst:narrow(cy, oy, src:size(cy)):narrow(cx, ox, src:size(cx))
      end
      return dst
   end

   -- minmax{tensor, min, max, symm, inplace, saturate, tensorOut}: the tensor moved to [0, 1]
   -- from [min, max] (its own range by default; symm makes it symmetric about 0).
   function image.minmax(args)
      local tensor = args.tensor
      local min, max = args.min, args.max
      local saturate = args.saturate or false
      local out = args.tensorOut or (args.inplace and tensor) or torch.Tensor(tensor:size()):copy(tensor)
      if args.tensorOut then out:resize(tensor:size()):copy(tensor) end
      if min == nil and max == nil then saturate = false end
      local half = 0
      if min == nil then
         if args.symm then
            half = math.max(math.abs(out:min()), math.abs(out:max()))
            min = -half
         else
            min = out:min()
         end
      end
      if min ~= 0 then out:add(-min) end
      if max == nil then
         max = args.symm and half * 2 or out:max()
      else
         max = max - min
      end
      if max ~= 0 then out:div(max) end
      if saturate then lib.saturate(out) end
      return out
   end

   -- lcn(im[, kernel]): local contrast normalisation of a grey image (9x9 gaussian by default).
   function image.lcn(im, ker)
      ker = ker or image.gaussian({ size = 9, sigma = 1.591 / 9, normalize = true })
      im = im:clone():type('torch.DoubleTensor')
      if not (im:dim() == 2 or (im:dim() == 3 and im:size(1) == 1)) then
         fail('image.lcn', 'grayscale image expected')
      end
      if im:dim() == 3 then im = im[1] end
      im:add(-im:mean()):div(im:std())
      local mean = torch.conv2(im, ker)
      local var = torch.conv2(torch.cmul(im, im), ker):add(-1, torch.cmul(mean, mean))
      local std = var:clamp(0, math.huge):sqrt():clamp(1, math.huge)
      local si = math.floor(ker:size(1) / 2) + 1
      local sj = math.floor(ker:size(2) / 2) + 1
      local out = im:narrow(1, si, std:size(1)):narrow(2, sj, std:size(2)):clone()
      return out:add(-1, mean):cdiv(std)
   end

   local function padded(im, kern, value)
      local hp, wp = (kern:size(1) - 1) / 2, (kern:size(2) - 1) / 2
      local p = im.new(im:size(1) + 2 * hp, im:size(2) + 2 * wp):fill(value)
      p:narrow(1, hp + 1, im:size(1)):narrow(2, wp + 1, im:size(2)):copy(im)
      return p
   end

   local function morphology(fn, im, kern)
      if not torch.isTensor(im) or im:dim() ~= 2 then fail(fn, 'expected a HxW binary image') end
      kern = kern or torch.ones(3, 3):typeAs(im)
      if kern:size(1) % 2 == 0 or kern:size(2) % 2 == 0 then fail(fn, 'the kernel must have odd sizes') end
      return kern:typeAs(im)
   end

   -- erode(im[, kernel = ones(3, 3)[, pad = 1]]): pixels whose whole neighbourhood is set.
   function image.erode(im, kern, pad)
      kern = morphology('image.erode', im, kern)
      local conv = torch.conv2(padded(im, kern, pad or 1), kern)
      return conv:eq(kern:sum()):typeAs(im)
   end

   -- dilate(im[, kernel = ones(3, 3)[, pad = 0]]): pixels with any neighbour set.
   function image.dilate(im, kern, pad)
      kern = morphology('image.dilate', im, kern)
      kern = image.hflip(image.vflip(kern))
      local conv = torch.conv2(padded(im, kern, pad or 0), kern)
      return conv:gt(0):typeAs(im)
   end

   local function pyramidArgs(fn, ...)
      local n, a = select('#', ...), { ... }
      if n == 3 then return a[1], a[2], a[3] end
      if n == 2 then return {}, a[1], a[2] end
      util.usage(fn, fn .. '([dst,] src, scales)')
   end

   -- gaussianpyramid([dst,] src, scales): src scaled by each factor of scales, each level made
   -- from the previous one blurred by a 3x3 gaussian.
   function image.gaussianpyramid(...)
      local dst, src, scales = pyramidArgs('image.gaussianpyramid', ...)
      if not torch.isTensor(src) or (src:dim() ~= 2 and src:dim() ~= 3) then
         fail('image.gaussianpyramid', 'src image must be 2D or 3D')
      end
      local d = src:dim()
      for i, s in ipairs(scales) do
         dst[i] = dst[i] or src.new()
         local size = src:size()
         size[d - 1] = math.floor(size[d - 1] * s)
         size[d] = math.floor(size[d] * s)
         dst[i]:resize(size)
      end
      local k = image.gaussian{ width = 3, normalize = true }:typeAs(src)
      local level = src
      for i, s in ipairs(scales) do
         if s == 1 then
            dst[i]:copy(level)
         else
            image.scale(dst[i], level, 'simple')
         end
         level = image.convolve(dst[i], k, 'same')
      end
      return dst
   end

   -- laplacianpyramid([dst,] src, scales): each level of the gaussian pyramid less the next
   -- level scaled back up to it (bilinear); the last level is the gaussian pyramid's own.
   function image.laplacianpyramid(...)
      local dst, src, scales = pyramidArgs('image.laplacianpyramid', ...)
      local g = image.gaussianpyramid(src, scales)
      for i = 1, #g do
         dst[i] = dst[i] or src.new()
         dst[i]:resizeAs(g[i]):copy(g[i])
         if i < #g then
            dst[i]:add(-1, image.scale(g[i]:clone(), g[i + 1], 'bilinear'))
         end
      end
      return dst
   end
end
