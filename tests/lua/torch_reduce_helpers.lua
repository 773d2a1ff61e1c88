-- Fixtures and references specific to the torch_reduce_*.lua scripts, on top of the shared
-- assertions of torch_test_helpers.lua (loaded with dofile).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or '') .. 'torch_test_helpers.lua')

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

return H
