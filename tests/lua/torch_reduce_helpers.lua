-- Assertions and references shared by the torch_reduce_*.lua scripts (loaded with dofile).
require 'torch'

local H = {}

local function flatten(t, out)
   if type(t) == 'table' then
      for _, v in ipairs(t) do flatten(v, out) end
   else
      out[#out + 1] = t
   end
   return out
end

local function shape(t, out)
   out = out or {}
   if type(t) == 'table' and #t > 0 then
      out[#out + 1] = #t
      if type(t[1]) == 'table' then shape(t[1], out) end
   end
   return out
end

function H.sizes(t)
   return t:dim() > 0 and table.concat(t:size():totable(), 'x') or ''
end

-- `t` has exactly the sizes and values of the nested table `expected` (and type `typename` when
-- given). Values are compared exactly unless `tol` (relative, or absolute near 0) is given; NaN
-- matches NaN.
function H.same(t, expected, typename, tol)
   assert(torch.isTensor(t), 'not a tensor: ' .. tostring(t))
   if typename then
      assert(torch.type(t) == typename, 'type ' .. torch.type(t) .. ', expected ' .. typename)
   end
   local want = table.concat(shape(expected), 'x')
   assert(H.sizes(t) == want, 'size ' .. H.sizes(t) .. ', expected ' .. want)
   local a, b = flatten(t:totable(), {}), flatten(expected, {})
   for i = 1, #b do
      local ok = a[i] == b[i] or (a[i] ~= a[i] and b[i] ~= b[i])
         or (tol and math.abs(a[i] - b[i]) <= tol * math.max(1, math.abs(b[i])))
      assert(ok, string.format('element %d is %.17g, expected %.17g', i, a[i], b[i]))
   end
end

-- Two tensors have the same type, sizes and values (exactly; NaN matches NaN).
function H.equal(a, b, what)
   what = what or ''
   assert(torch.type(a) == torch.type(b), what .. ': type ' .. torch.type(a) .. ' vs ' .. torch.type(b))
   assert(H.sizes(a) == H.sizes(b), what .. ': size ' .. H.sizes(a) .. ' vs ' .. H.sizes(b))
   local fa, fb = flatten(a:totable(), {}), flatten(b:totable(), {})
   for i = 1, #fa do
      assert(fa[i] == fb[i] or (fa[i] ~= fa[i] and fb[i] ~= fb[i]),
         string.format('%s: element %d is %.17g, expected %.17g', what, i, fa[i], fb[i]))
   end
end

-- A number equal to `expected` (NaN matches NaN), within `tol` (relative) when given.
function H.num(v, expected, tol)
   assert(type(v) == 'number', 'not a number: ' .. tostring(v))
   local ok = v == expected or (v ~= v and expected ~= expected)
      or (tol and math.abs(v - expected) <= tol * math.max(1, math.abs(expected)))
   assert(ok, string.format('got %.17g, expected %.17g', v, expected))
end

-- Calling f raises exactly `message` (a Lua-side error may carry a position prefix).
function H.fails(message, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error: ' .. message)
   err = tostring(err)
   local tail = err:sub(-#message)
   assert(tail == message and (#err == #message or err:sub(1, #err - #message):match(':%d+: $')),
      'error was\n  ' .. err .. '\nexpected\n  ' .. message)
end

-- Whether two tensors are the same userdata.
function H.is(a, b)
   return torch.pointer(a) == torch.pointer(b)
end

-- A tensor of type T and the given sizes holding 1, 2, 3, ... in row-major order.
function H.seq(T, ...)
   local t = torch[T .. 'Tensor'](...)
   local s = t:storage()
   for i = 1, t:nElement() do s[i] = i end
   return t
end

-- A tensor of type T and the given sizes holding pseudo-random integers in [lo, hi] (a fixed
-- LCG: the tests do not depend on torch's generator).
function H.random(T, lo, hi, seed, ...)
   local sizes = { ... }
   local n = 1
   for _, sz in ipairs(sizes) do n = n * sz end
   local values, state = {}, seed
   for i = 1, n do
      state = (state * 1103515245 + 12345) % 2147483648
      values[i] = lo + state % (hi - lo + 1)
   end
   return torch[T .. 'Tensor'](values):view(torch.LongStorage(sizes))
end

-- Reference reduction along `dim` by plain Lua loops over the tensor's elements: `f(list)`
-- receives the lane's values and returns the result element(s) (a number or a list of numbers,
-- laid out along `dim`). Returns a DoubleTensor.
function H.reference(x, dim, f)
   local size = x:size():totable()
   local n = size[dim]
   local out_size, out
   local idx = {}
   for d = 1, #size do idx[d] = 1 end
   local function lane()
      local vals = {}
      for i = 1, n do
         idx[dim] = i
         vals[i] = x[idx]
      end
      idx[dim] = 1
      return vals
   end
   -- Visit every position of the kept dimensions.
   local positions = {}
   local function walk(d)
      if d > #size then
         positions[#positions + 1] = { unpack(idx) }
         return
      end
      if d == dim then return walk(d + 1) end
      for i = 1, size[d] do
         idx[d] = i
         walk(d + 1)
      end
      idx[d] = 1
   end
   walk(1)
   for _, pos in ipairs(positions) do
      for d = 1, #size do idx[d] = pos[d] end
      local r = f(lane())
      if type(r) == 'number' then r = { r } end
      if out == nil then
         out_size = { unpack(size) }
         out_size[dim] = #r
         out = torch.DoubleTensor(torch.LongStorage(out_size))
      end
      for i = 1, #r do
         local o = { unpack(pos) }
         o[dim] = i
         out[o] = r[i]
      end
   end
   return out
end

-- Views of a 3-D tensor of sizes a x b x c with the same logical contents: contiguous, the
-- transpose of a contiguous c x b x a (every stride reversed), and a narrowed window of a larger
-- tensor.
function H.views(x)
   local out = { contiguous = x }
   local a, b, c = x:size(1), x:size(2), x:size(3)
   local t = x.new(c, b, a)
   t:copy(x:transpose(1, 3))
   out.transposed = t:transpose(1, 3)
   local big = x.new(a + 2, b + 3, c + 1):zero()
   local win = big:narrow(1, 2, a):narrow(2, 3, b):narrow(3, 1, c)
   win:copy(x)
   out.narrowed = win
   return out
end

H.types = { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }
H.floats = { 'Float', 'Double' }
H.ints = { 'Byte', 'Char', 'Short', 'Int', 'Long' }

return H
