-- Assertions shared by the torch_*.lua test scripts. Load it with dofile: the tests run with the
-- working directory tests/lua, and the area helper files load it from their own directory.
require 'torch'

local H = {}

H.types = { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }
H.floats = { 'Float', 'Double' }
H.ints = { 'Byte', 'Char', 'Short', 'Int', 'Long' }

---------------------------------------------------------------------------------------------------
-- Nested Lua tables and tensor elements.

-- The numbers of a nested table in row-major order (a number alone gives a list of one).
function H.flatten(t, out)
   out = out or {}
   if type(t) == 'table' then
      for _, v in ipairs(t) do H.flatten(v, out) end
   else
      out[#out + 1] = t
   end
   return out
end

-- The sizes of a nested table, following the first element at each level. An empty table has no
-- size, unless `keep_empty` is given: then it counts as a dimension of size 0.
function H.shape(t, keep_empty)
   local out = {}
   while type(t) == 'table' and (keep_empty or #t > 0) do
      out[#out + 1] = #t
      t = t[1]
   end
   return out
end

-- The sizes of a tensor as a string, '3x4' ('' for an empty tensor).
function H.sizes(t)
   return t:dim() > 0 and table.concat(t:size():totable(), 'x') or ''
end

-- The sizes of a tensor as a list ({} for an empty tensor).
function H.size_table(t)
   if t:dim() == 0 then return {} end
   return t:size():totable()
end

-- The elements of a tensor in logical (row-major) order, as a Lua list of numbers.
function H.flat(t)
   if t:dim() == 0 then return {} end
   return torch.DoubleTensor(t:nElement()):copy(t):storage():totable()
end

-- A value for a failure message: strings quoted.
function H.show(v)
   if type(v) == 'string' then return string.format('%q', v) end
   return tostring(v)
end

-- A list as '{1,2,3}'.
function H.list_str(l)
   local parts = {}
   for i, v in ipairs(l) do parts[i] = tostring(v) end
   return '{' .. table.concat(parts, ',') .. '}'
end

local function list_eq(a, b)
   if #a ~= #b then return false end
   for i = 1, #a do
      if a[i] ~= b[i] then return false end
   end
   return true
end

---------------------------------------------------------------------------------------------------
-- Tensors against nested tables, with assert: NaN matches NaN.

local function same(t, expected, typename, within)
   assert(torch.isTensor(t), 'not a tensor: ' .. tostring(t))
   if typename then
      assert(torch.type(t) == typename, 'type ' .. torch.type(t) .. ', expected ' .. typename)
   end
   local want = table.concat(H.shape(expected), 'x')
   assert(H.sizes(t) == want, 'size ' .. H.sizes(t) .. ', expected ' .. want)
   local a, b = H.flatten(t:totable()), H.flatten(expected)
   for i = 1, #b do
      local ok = a[i] == b[i] or (a[i] ~= a[i] and b[i] ~= b[i]) or (within and within(a[i], b[i]))
      assert(ok, string.format('element %d is %.17g, expected %.17g', i, a[i], b[i]))
   end
end

-- `t` has exactly the sizes and values of the nested table `expected` (and type `typename` when
-- given). Values are compared exactly unless `tol` (relative, or absolute near 0) is given.
function H.same(t, expected, typename, tol)
   same(t, expected, typename, tol and function(a, b)
      return math.abs(a - b) <= tol * math.max(1, math.abs(b))
   end)
end

-- H.same with `tol` an absolute tolerance.
function H.same_abs(t, expected, typename, tol)
   same(t, expected, typename, function(a, b) return math.abs(a - b) <= tol end)
end

-- Two tensors have the same type, sizes and values (exactly; NaN matches NaN).
function H.equal(a, b, what)
   what = what or ''
   assert(torch.type(a) == torch.type(b), what .. ': type ' .. torch.type(a) .. ' vs ' .. torch.type(b))
   assert(H.sizes(a) == H.sizes(b), what .. ': size ' .. H.sizes(a) .. ' vs ' .. H.sizes(b))
   local fa, fb = H.flatten(a:totable()), H.flatten(b:totable())
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

---------------------------------------------------------------------------------------------------
-- Checks that name what was checked, show both values and point at the test line that failed
-- (error(..., 2)).

function H.eq(got, want, what)
   if got ~= want then
      error((what or 'value') .. ': got ' .. H.show(got) .. ', want ' .. H.show(want), 2)
   end
end

function H.check(cond, what)
   if not cond then error('check failed: ' .. (what or '?'), 2) end
end

-- Two lists of numbers are equal.
function H.list(got, want, what)
   if not list_eq(got, want) then
      error((what or 'list') .. ': got ' .. H.list_str(got) .. ', want ' .. H.list_str(want), 2)
   end
end

-- t has type `typename` (optional), sizes `sizes` and elements `values` (row-major, optional).
function H.tensor(t, sizes, values, what, typename)
   what = what or 'tensor'
   if typename and torch.typename(t) ~= typename then
      error(what .. ': type ' .. tostring(torch.typename(t)) .. ', want ' .. typename, 2)
   end
   if not list_eq(H.size_table(t), sizes) then
      error(what .. ': sizes ' .. H.list_str(H.size_table(t)) .. ', want ' .. H.list_str(sizes), 2)
   end
   if values and not list_eq(H.flat(t), values) then
      error(what .. ': values ' .. H.list_str(H.flat(t)) .. ', want ' .. H.list_str(values), 2)
   end
end

---------------------------------------------------------------------------------------------------
-- Expected errors.

-- Calling f raises exactly `message`, bare or placed at a line of the calling script
-- (`script.lua:12: message`), as luaL_error placed Torch7's errors at the Lua line that called the
-- C function; a place inside the library would mean a wrapper of ours took the caller's place.
function H.fails(message, f, ...)
   local ok, got = pcall(f, ...)
   if ok then error('expected the error ' .. H.show(message) .. ', but the call succeeded', 2) end
   got = tostring(got)
   local place = got:sub(1, #got - #message)
   local script = debug.getinfo(2, 'S').short_src
   local placed_in_script = place:sub(1, #script + 1) == script .. ':'
      and place:sub(#script + 2):match('^%d+: $')
   if got:sub(-#message) ~= message or not (place == '' or placed_in_script) then
      error('error message: got ' .. H.show(got) .. ', want ' .. H.show(message), 2)
   end
end

-- f() fails with a message containing `expected` (plain text, not a pattern); returns the message.
function H.fails_containing(f, expected, what)
   local ok, err = pcall(f)
   if ok then error((what or expected) .. ': no error was raised', 2) end
   err = tostring(err)
   if not err:find(expected, 1, true) then
      error((what or 'error') .. ': message ' .. H.show(err) .. ' does not contain ' .. H.show(expected), 2)
   end
   return err
end

---------------------------------------------------------------------------------------------------
-- Tensors and storage.

-- Whether two tensors are the same userdata.
function H.is(a, b)
   return torch.pointer(a) == torch.pointer(b)
end

-- Same underlying memory: writing through one is seen through the other.
function H.shares(a, b, what)
   if torch.pointer(a:storage()) ~= torch.pointer(b:storage()) then
      error((what or 'views') .. ': do not share a storage', 2)
   end
end

-- A tensor of type T and the given sizes holding 1, 2, 3, ... in row-major order.
function H.seq(T, ...)
   local t = torch[T .. 'Tensor'](...)
   local s = t:storage()
   for i = 1, t:nElement() do s[i] = i end
   return t
end

-- The same value rounded to single precision.
function H.float(x)
   return torch.FloatTensor({ x })[1]
end

return H
