-- Ours against the original torch/image: every case of tests/fixtures/image/original/cases.lua is
-- run again and compared with what the original gave (original.t7, written by record.lua under
-- the original Torch7):
-- - 'exact': PNG, PPM and PGM loads, sizes, byte results: every value equal;
-- - 'jpeg': JPEG decodes within 1/255 of the range (1 in bytes) on every value; the values that
--   differ at all are counted and printed;
-- - 'float': results of float arithmetic within float rounding (see tolerance below); results of
--   an integer type exactly;
-- - 'codec': the JPEG encoder's output decoded again; encoders may differ, so how far is printed
--   and bounded loosely.
-- Where the original raised an error, ours must raise one too, except in `fixed` below: bugs of the
-- original that ours deliberately does not have.

local H = dofile('helpers.lua')
local dir = H.fixtures
local original = torch.load(dir .. 'original/original.t7')
local cases = dofile(dir .. 'original/cases.lua')(dir)

-- Cases where the original raises an error and ours gives a result on purpose (README's "Where it
-- differs from torch/image"): bugs of the original, fixed.
local fixed = {}
for _, name in ipairs({
   -- get_png_size refuses palette PNGs ('unsupported type: PALETTE'), which load as RGB
   'getSize palette.png', 'getPNGsize palette.png',
   -- polar and logpolar swap their defaults (interp = interp or 'valid'), so the defaults raise
   'polar R defaults', 'logpolar R bilinear default mode',
   -- a 2-D image: the original asks for src:size(3) before its kernel, which takes 2-D images
   'polar G simple valid', 'polar G simple full', 'polar G bilinear valid', 'polar G bilinear full',
   'logpolar G simple valid', 'logpolar G simple full', 'logpolar G bilinear valid', 'logpolar G bilinear full',
   -- warp's field must be of the image's type there; affinetransform builds its field in the
   -- default type, so it raises on every image of another type (a FloatTensor here)
   'warp field of another type', 'affinetransform R simple', 'affinetransform R bilinear',
   'affinetransform R bicubic', 'affinetransform R lanczos', 'affinetransform R default',
   -- text wrapped past the bottom raises 'out of range' there; ours skips the pixels off the image
   'drawText past the bottom',
}) do fixed[name] = true end
-- (Not recorded at all: the original's rgb2nrgb of a byte image with a black pixel divides an
-- integer by zero and the process dies of SIGFPE; ours raises a Lua error, checked at the end.)

-- Float rounding: the tolerance is that of a float, 2^-20 (8 units in the last place of a float
-- near 1) times the largest magnitude of the expected values, for FloatTensor and DoubleTensor
-- results alike:
-- - both runtimes do the same arithmetic, but not always in the same order or width (ours may keep
--   a sum in double where the original keeps it in float, or the other way), so a float result may
--   differ in its last bits;
-- - the original's kernels carry a DoubleTensor's values through `float` intermediates in many
--   places (crop, scale 'simple', rotate 'simple', polar: `float val = src[...]`), so its double
--   results are only as precise as a float there (they differ from the input by up to 2^-25 after
--   a mere copy); ours keeps the double's precision, a deliberate difference within float rounding.
local function tolerance(scale)
   return 2 ^ -20 * math.max(1, scale)
end

local integer = {
   ['torch.ByteTensor'] = true, ['torch.CharTensor'] = true, ['torch.ShortTensor'] = true,
   ['torch.IntTensor'] = true, ['torch.LongTensor'] = true,
}

local failures = {}
local stats = { jpegValues = 0, jpegDiffer = 0, jpegCases = 0, compared = 0, codec = {}, worst = {} }

local function fail(name, msg) failures[#failures + 1] = name .. ': ' .. msg end

local function compareTensor(name, kind, ours, want)
   local tw, to = torch.typename(want), torch.typename(ours)
   if tw ~= to then return fail(name, string.format('type %s, the original gives %s', to, tw)) end
   if not ours:isSameSizeAs(want) then
      return fail(name, string.format('size %s, the original gives %s',
         table.concat(ours:size():totable(), 'x'), table.concat(want:size():totable(), 'x')))
   end
   if want:nElement() == 0 then return end
   local a, b = ours:double(), want:double()
   local diff = (a - b):abs()
   local max = diff:max()
   stats.compared = stats.compared + 1
   if kind == 'jpeg' or (kind == 'codec') then
      local unit = integer[tw] and 1 or 1 / 255
      local differ = diff:gt(unit * 1e-3):sum()
      if kind == 'jpeg' then
         stats.jpegCases = stats.jpegCases + 1
         stats.jpegValues = stats.jpegValues + want:nElement()
         stats.jpegDiffer = stats.jpegDiffer + differ
         if max > unit * (1 + 1e-6) then
            fail(name, string.format('%d values differ, by up to %g (more than 1/255)', differ, max / unit))
         end
      else
         stats.codec[#stats.codec + 1] = string.format('%s: %d of %d values differ, by up to %d/255, mean %.3f/255',
            name, differ, want:nElement(), math.floor(max / unit + 0.5), diff:mean() / unit)
         -- two libjpeg-turbo encoders at the same quality: within a few steps of each other
         if max > 16 * unit then fail(name, string.format('the encoder differs by %g/255', max / unit)) end
      end
   elseif kind == 'exact' or integer[tw] then
      if max ~= 0 then
         fail(name, string.format('%d values differ, by up to %g', diff:gt(0):sum(), max))
      end
   else
      local scale = b:clone():abs():max()
      local tol = tolerance(scale)
      local rel = max / math.max(1, scale)
      local worst = stats.worst[tw]
      if not worst or rel > worst[1] then stats.worst[tw] = { rel, name } end
      if not (max <= tol) then
         fail(name, string.format('%d values differ by more than %g (float rounding), by up to %g',
            diff:gt(tol):sum(), tol, max))
      end
   end
end

local function compare(name, kind, ours, want)
   if torch.isTensor(want) then
      if not torch.isTensor(ours) then return fail(name, 'gives ' .. type(ours) .. ', not a tensor') end
      return compareTensor(name, kind, ours, want)
   elseif type(want) == 'table' then
      if type(ours) ~= 'table' or #ours ~= #want then
         return fail(name, string.format('gives %s of %s values, the original %d', type(ours),
            type(ours) == 'table' and #ours or '-', #want))
      end
      for i = 1, #want do compare(name .. '[' .. i .. ']', kind, ours[i], want[i]) end
   elseif type(want) == 'number' then
      if type(ours) ~= 'number' or (kind ~= 'float' and ours ~= want)
         or math.abs(ours - want) > tolerance(math.abs(want)) then
         fail(name, string.format('gives %s, the original %s', tostring(ours), tostring(want)))
      end
   elseif ours ~= want then
      fail(name, string.format('gives %s, the original %s', tostring(ours), tostring(want)))
   end
end

local byName = {}
for _, r in ipairs(original.results) do byName[r.name] = r end

local ran, errorsToo = 0, 0
for _, c in ipairs(cases) do
   local want = byName[c.name]
   H.check(want ~= nil, 'the original recorded ' .. c.name)
   ran = ran + 1
   local ok, ours = pcall(c.f)
   if want.err then
      if fixed[c.name] then
         if not ok then fail(c.name, 'ours raises ' .. tostring(ours) .. ' where the original\'s bug is fixed') end
      elseif ok then
         fail(c.name, 'gives a result where the original raises: ' .. want.err)
      else
         errorsToo = errorsToo + 1
      end
   elseif not ok then
      fail(c.name, 'raises ' .. tostring(ours))
   elseif c.kind == 'store' then
      -- the original's encoded bytes, decoded by ours, against the original's decoding of them
      compare(c.name .. ' decoded', want.dkind, (c.decode(want.value)), want.decoded)
   else
      compare(c.name, c.kind, ours, want.value)
   end
end

print(string.format('%d cases against the original (%d tensors compared, %d errors raised by both)',
   ran, stats.compared, errorsToo))
print(string.format('JPEG decodes: %d of %d values differ from the original\'s libjpeg (in %d decodes)',
   stats.jpegDiffer, stats.jpegValues, stats.jpegCases))
for t, w in pairs(stats.worst) do
   print(string.format('%s results: the largest difference is %.3g of their magnitude (%s)', t, w[1], w[2]))
end
for _, line in ipairs(stats.codec) do print('JPEG encoder, ' .. line) end
H.fails(function() image.rgb2nrgb(torch.ByteTensor(3, 2, 2):fill(0)) end,
   'rgb2nrgb of a black byte pixel (the original dies of SIGFPE)', 'division by zero')
for _, f in ipairs(failures) do print('DIFFERS ' .. f) end
H.check(#failures == 0, #failures .. ' cases differ from the original')
H.done()
