-- Assertions shared by the torch_math_*.lua scripts (loaded with dofile).
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

local function sizes(t)
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
   assert(sizes(t) == want, 'size ' .. sizes(t) .. ', expected ' .. want)
   local a, b = flatten(t:totable(), {}), flatten(expected, {})
   for i = 1, #b do
      local ok = a[i] == b[i] or (a[i] ~= a[i] and b[i] ~= b[i])
         or (tol and math.abs(a[i] - b[i]) <= tol * math.max(1, math.abs(b[i])))
      assert(ok, string.format('element %d is %.17g, expected %.17g', i, a[i], b[i]))
   end
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

-- The same value rounded to single precision.
function H.float(x)
   return torch.FloatTensor({ x })[1]
end

-- A 2-D tensor of `rows` x `cols` of type `T` holding 1, 2, 3, ... row by row.
function H.seq(T, rows, cols)
   local t = torch[T .. 'Tensor'](rows, cols)
   local s = t:storage()
   for i = 1, rows * cols do s[i] = i end
   return t
end

-- Whether two tensors share the same userdata.
function H.is(a, b)
   return torch.pointer(a) == torch.pointer(b)
end

H.types = { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }
H.floats = { 'Float', 'Double' }
H.ints = { 'Byte', 'Char', 'Short', 'Int', 'Long' }

return H
