-- Geometry: crop, translate, scale, rotate, polar and log-polar maps, warps and affine
-- transforms, flips. Functions that take a destination take it first (`image.scale(dst, src)`);
-- without one they make it of the source's type.

return function(image, lib, util)
   local fail, trunc = util.fail, util.trunc

   local function newImage(src, c, h, w)
      if h < 1 or w < 1 then return nil end
      if src:dim() == 3 then return src.new(c, h, w) end
      return src.new(h, w)
   end

   -- crop([dst,] src, x1, y1[, x2, y2]) | crop([dst,] src, format, width, height)
   function image.crop(...)
      local n, a = select('#', ...), { ... }
      local dst, src, x1, y1, x2, y2, format, width, height
      if n == 6 then
         dst, src, x1, y1, x2, y2 = a[1], a[2], a[3], a[4], a[5], a[6]
      elseif n == 5 and type(a[3]) == 'string' then
         dst, src, format, width, height = a[1], a[2], a[3], a[4], a[5]
      elseif n == 5 then
         src, x1, y1, x2, y2 = a[1], a[2], a[3], a[4], a[5]
      elseif n == 4 and type(a[2]) == 'string' then
         src, format, width, height = a[1], a[2], a[3], a[4]
      elseif n == 4 then
         dst, src, x1, y1 = a[1], a[2], a[3], a[4]
      elseif n == 3 then
         src, x1, y1 = a[1], a[2], a[3]
      else
         util.usage('image.crop', "image.crop([dst,] src, x1, y1[, x2, y2]) or "
            .. "image.crop([dst,] src, 'c'|'tl'|'tr'|'bl'|'br', width, height)")
      end
      local iw, ih = util.dims('image.crop', src)
      if format then
         local corners = {
            c = { math.floor((iw - width) / 2), math.floor((ih - height) / 2) },
            tl = { 0, 0 }, tr = { iw - width, 0 }, bl = { 0, ih - height }, br = { iw - width, ih - height },
         }
         local at = corners[format]
         if not at then fail('image.crop', 'crop format must be "c"|"tl"|"tr"|"bl"|"br", not ' .. tostring(format)) end
         return image.crop(dst, src, at[1], at[2], at[1] + width, at[2] + height)
      end
      if x2 == nil then
         if not torch.isTensor(dst) then fail('image.crop', 'crop(dst, src, x1, y1) needs a destination') end
         lib.cropNoScale(src, dst, x1, y1)
         return dst
      end
      local c = src:dim() == 3 and src:size(1) or 1
      local piece = newImage(src, c, trunc(y2 - y1), trunc(x2 - x1))
      if not piece then
         fail('image.crop', string.format('empty crop: (%s, %s) to (%s, %s)', x1, y1, x2, y2))
      end
      lib.cropNoScale(src, piece, x1, y1)
      if dst then
         image.scale(dst, piece)
         return dst
      end
      return piece
   end

   -- translate([dst,] src, x, y): shifted right by x and down by y, zeros where nothing lands.
   function image.translate(...)
      local n, a = select('#', ...), { ... }
      local dst, src, x, y
      if n == 4 then
         dst, src, x, y = a[1], a[2], a[3], a[4]
      elseif n == 3 then
         src, x, y = a[1], a[2], a[3]
      else
         util.usage('image.translate', 'image.translate([dst,] src, x, y)')
      end
      util.dims('image.translate', src)
      dst = dst or src.new()
      dst:resizeAs(src):zero()
      lib.translate(src, dst, x, y)
      return dst
   end

   -- The (width, height) that a size argument asks for: a number (the longer side), 'WxH', 'MAX',
   -- '^MIN' (the shorter side), '*SC' or '*SCn/SCd' (a factor).
   local function sizeFor(iw, ih, size)
      local longest = tonumber(size)
      if longest then
         local m = math.max(iw, ih)
         return iw * longest / m, ih * longest / m
      end
      if type(size) ~= 'string' then return nil end
      local w, h = size:match('^(%d+)x(%d+)$')
      if w then return tonumber(w), tonumber(h) end
      local shortest = tonumber(size:match('^%^(%d+)$'))
      if shortest then
         local m = math.min(iw, ih)
         return iw * shortest / m, ih * shortest / m
      end
      local num, den = size:match('^%*(%d+)/(%d+)$')
      if num then return iw * num / den, ih * num / den end
      local factor = tonumber(size:match('^%*(.+)$'))
      if factor then return iw * factor, ih * factor end
      return nil
   end

   local scalers = { bilinear = lib.scaleBilinear, bicubic = lib.scaleBicubic, simple = lib.scaleSimple }

   -- scale(src, width, height[, mode]) | scale(src, size[, mode]) | scale(dst, src[, mode]);
   -- mode 'bilinear' (default), 'bicubic' or 'simple'.
   function image.scale(...)
      local n, a = select('#', ...), { ... }
      local dst, src, width, height, mode, size
      local function isSize(v) return type(v) == 'string' or type(v) == 'number' end
      if n == 4 then
         src, width, height, mode = a[1], a[2], a[3], a[4]
      elseif n == 3 and type(a[3]) == 'string' and isSize(a[2]) then
         src, size, mode = a[1], a[2], a[3]
      elseif n == 3 and type(a[3]) == 'string' then
         dst, src, mode = a[1], a[2], a[3]
      elseif n == 3 then
         src, width, height = a[1], a[2], a[3]
      elseif n == 2 and isSize(a[2]) then
         src, size = a[1], a[2]
      elseif n == 2 then
         dst, src = a[1], a[2]
      else
         util.usage('image.scale', 'image.scale(src, width, height[, mode]), image.scale(src, size[, mode]) '
            .. "or image.scale(dst, src[, mode]); size a number or 'WxH', '^MIN', '*SC', '*SCn/SCd'")
      end
      local iw, ih = util.dims('image.scale', src)
      if size then width, height = sizeFor(iw, ih, size) end
      mode = mode or 'bilinear'
      local scaler = scalers[mode]
      if not scaler then fail('image.scale', 'mode must be one of: simple | bicubic | bilinear') end
      if not dst then
         if type(width) ~= 'number' or type(height) ~= 'number' then
            fail('image.scale', 'could not find valid dest size' .. (size and (' in ' .. tostring(size)) or ''))
         end
         dst = newImage(src, src:dim() == 3 and src:size(1) or 1,
            math.max(trunc(height), 1), math.max(trunc(width), 1))
      end
      scaler(src, dst)
      return dst
   end

   -- rotate([dst,] src, theta[, mode]): theta in radians about the centre; mode 'simple'
   -- (nearest, default) or 'bilinear'; corners from outside the image are 0.
   function image.rotate(...)
      local n, a = select('#', ...), { ... }
      local dst, src, theta, mode
      if n == 4 then
         dst, src, theta, mode = a[1], a[2], a[3], a[4]
      elseif n == 3 and type(a[2]) == 'number' then
         src, theta, mode = a[1], a[2], a[3]
      elseif n == 3 then
         dst, src, theta = a[1], a[2], a[3]
      elseif n == 2 then
         src, theta = a[1], a[2]
      else
         util.usage('image.rotate', "image.rotate([dst,] src, theta[, 'simple'|'bilinear'])")
      end
      util.dims('image.rotate', src)
      mode = mode or 'simple'
      local rotator = ({ simple = lib.rotate, bilinear = lib.rotateBilinear })[mode]
      if not rotator then fail('image.rotate', 'mode must be one of: simple | bilinear') end
      dst = dst or src.new()
      dst:resizeAs(src)
      rotator(src, dst, theta)
      return dst
   end

   local function polarMap(name, simple, bilinear)
      local fn = 'image.' .. name
      return function(...)
         local n, a = select('#', ...), { ... }
         local dst, src, interp, mode
         if n == 4 then
            dst, src, interp, mode = a[1], a[2], a[3], a[4]
         elseif n == 3 and type(a[2]) == 'string' then
            src, interp, mode = a[1], a[2], a[3]
         elseif n == 3 then
            dst, src, interp = a[1], a[2], a[3]
         elseif n == 2 and type(a[2]) == 'string' then
            src, interp = a[1], a[2]
         elseif n == 2 then
            dst, src = a[1], a[2]
         elseif n == 1 then
            src = a[1]
         else
            util.usage(fn, fn .. "([dst,] src[, 'simple'|'bilinear'[, 'valid'|'full']])")
         end
         local iw, ih = util.dims(fn, src)
         interp, mode = interp or 'simple', mode or 'valid'
         local f = ({ simple = simple, bilinear = bilinear })[interp]
         if not f then fail(fn, 'interpolation must be one of: simple | bilinear') end
         local full = ({ valid = 0, full = 1 })[mode]
         if not full then fail(fn, 'mode must be one of: valid | full') end
         if not dst then
            local side = math.max(iw, ih)
            dst = newImage(src, src:dim() == 3 and src:size(1) or 1, side, side)
         end
         f(src, dst, full)
         return dst
      end
   end
   image.polar = polarMap('polar', lib.polar, lib.polarBilinear)
   image.logpolar = polarMap('logpolar', lib.logPolar, lib.logPolarBilinear)

   local warpModes = { simple = 0, bilinear = 1, bicubic = 2, lanczos = 3 }
   local clampModes = { clamp = 0, pad = 1 }

   -- Reads [dst,] src, second, [mode, fourth, clamp_mode, pad_value] as warp and
   -- affinetransform take them.
   local function warpArgs(fn, fourthDefault, ...)
      local n, a = select('#', ...), { ... }
      local dst, src, second
      local mode, fourth, clamp, pad = 'bilinear', fourthDefault, 'clamp', 0
      local first = 1
      if n >= 3 and type(a[3]) ~= 'string' then
         dst, first = a[1], 2
      end
      src, second = a[first], a[first + 1]
      local rest = n - first - 1
      if n < 2 or rest > 4 then
         util.usage(fn, fn .. "([dst,] src, " .. (fn == 'image.warp' and 'field' or 'matrix')
            .. "[, 'simple'|'bilinear'|'bicubic'|'lanczos'[, ...[, 'clamp'|'pad'[, pad_value]]]])")
      end
      if rest >= 1 then mode = a[first + 2] end
      if rest >= 2 then fourth = a[first + 3] end
      if rest >= 3 then clamp = a[first + 4] end
      if rest >= 4 then
         if clamp ~= 'pad' then fail(fn, 'pad_value can only be specified if clamp_mode = "pad"') end
         pad = a[first + 5]
      end
      local m = warpModes[mode]
      if not m then fail(fn, 'mode must be one of: lanczos | bicubic | bilinear | simple') end
      local c = clampModes[clamp]
      if not c then fail(fn, 'clamp_mode must be one of: clamp | pad') end
      return dst, src, second, m, fourth, c, pad
   end

   local function runWarp(fn, dst, src, field, mode, offset, clamp, pad)
      util.dims(fn, src)
      local flat = src:dim() == 2
      if flat then src = src:view(1, src:size(1), src:size(2)) end
      if not torch.isTensor(field) or field:dim() ~= 3 or field:size(1) ~= 2 then
         fail(fn, 'the flow field must be a 2xHxW tensor (y, x)')
      end
      dst = dst or src.new()
      if flat and dst:dim() == 2 then dst = dst:view(1, dst:size(1), dst:size(2)) end
      dst:resize(src:size(1), field:size(2), field:size(3))
      lib.warp(dst, src, field, mode, offset, clamp, pad)
      if flat then return dst[1] end
      return dst
   end

   -- warp([dst,] src, field[, mode[, offset = true[, clamp_mode[, pad_value]]]]): field is 2 x H x W,
   -- (y, x) displacements (positions when offset is false).
   function image.warp(...)
      local dst, src, field, mode, offset, clamp, pad = warpArgs('image.warp', true, ...)
      return runWarp('image.warp', dst, src, field, mode, offset, clamp, pad)
   end

   -- affinetransform([dst,] src, matrix[, mode[, translation = {0, 0}[, clamp_mode[, pad_value]]]]):
   -- the 2x2 (y, x) matrix about the image centre, then the translation.
   function image.affinetransform(...)
      local fn = 'image.affinetransform'
      local dst, src, matrix, mode, translation, clamp, pad = warpArgs(fn, { 0, 0 }, ...)
      local w, h = util.dims(fn, src)
      -- Each pixel's offset from the centre, (y, x), negated.
      local grid = torch.Tensor(2, h, w)
      grid[1]:copy(torch.linspace((h - 1) / 2, -(h - 1) / 2, h):view(h, 1):expand(h, w))
      grid[2]:copy(torch.linspace((w - 1) / 2, -(w - 1) / 2, w):view(1, w):expand(h, w))
      local m = matrix:typeAs(grid)
      local field = grid - torch.mm(m, grid:view(2, h * w)):view(2, h, w)
      local t = torch.Tensor(translation)
      field[1]:add(-t[1])
      field[2]:add(-t[2])
      return runWarp(fn, dst, src, field, mode, true, clamp, pad)
   end

   local function flipper(name, native)
      local fn = 'image.' .. name
      return function(...)
         local n, a = select('#', ...), { ... }
         local dst, src
         if n == 2 then
            dst, src = a[1], a[2]
         elseif n == 1 then
            src = a[1]
         else
            util.usage(fn, fn .. '([dst,] src)')
         end
         util.dims(fn, src)
         dst = dst or src.new()
         if dst ~= src then dst:resizeAs(src) end
         native(dst, src)
         return dst
      end
   end
   image.hflip = flipper('hflip', lib.hflip)
   image.vflip = flipper('vflip', lib.vflip)

   -- flip([dst,] src, dim): reverses dimension dim of a tensor of up to 5 dimensions.
   function image.flip(...)
      local n, a = select('#', ...), { ... }
      local dst, src, dim
      if n == 3 then
         dst, src, dim = a[1], a[2], a[3]
      elseif n == 2 then
         src, dim = a[1], a[2]
      else
         util.usage('image.flip', 'image.flip([dst,] src, flip_dim)')
      end
      if not torch.isTensor(src) then fail('image.flip', 'a tensor expected') end
      if src:dim() > 5 then fail('image.flip', 'too many input dims (up to 5D supported)') end
      if type(dim) ~= 'number' or dim < 1 or dim > src:dim() then
         fail('image.flip', 'Bad flip dimension ' .. tostring(dim))
      end
      dst = dst or src.new()
      if dst ~= src then dst:resizeAs(src) end
      lib.flip(dst, src, dim)
      return dst
   end
end
