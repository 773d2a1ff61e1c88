-- Assertions and fixtures shared by the torch_linalg_*.lua tests. Every failure names what was
-- checked and shows both values; error(..., 2) points at the test line that failed.

local H = {}

-- The tensor types each test runs on: both float types (through BLAS) and integer types (the
-- plain loops).
H.types = { 'Double', 'Float', 'Int', 'Long' }

local function show(v)
   if type(v) == 'string' then return string.format('%q', v) end
   return tostring(v)
end

function H.eq(got, want, what)
   if got ~= want then
      error((what or 'value') .. ': got ' .. show(got) .. ', want ' .. show(want), 2)
   end
end

function H.check(cond, what)
   if not cond then error('check failed: ' .. (what or '?'), 2) end
end

-- A tensor of type T ('Double', ...) from nested tables.
function H.T(T, data)
   return torch[T .. 'Tensor'](data)
end

-- Flattens nested tables in row-major order; also returns the sizes.
local function flatten(data)
   local sizes, values = {}, {}
   local cursor = data
   while type(cursor) == 'table' do
      sizes[#sizes + 1] = #cursor
      cursor = cursor[1]
   end
   local function walk(t)
      for _, v in ipairs(t) do
         if type(v) == 'table' then walk(v) else values[#values + 1] = v end
      end
   end
   walk(data)
   return sizes, values
end

local function elements(t)
   local out = {}
   if t:dim() == 0 then return out end
   local n = t:nElement()
   local flat = torch.DoubleTensor(n):copy(t)
   for i = 1, n do out[i] = flat[i] end
   return out
end

local function list_str(l)
   local parts = {}
   for i, v in ipairs(l) do parts[i] = tostring(v) end
   return '{' .. table.concat(parts, ',') .. '}'
end

-- t is a tensor of type T whose sizes and elements are those of the nested table `want`
-- (a table of sizes and values when `want.sizes` is set, for empty results).
function H.same(t, T, want, what)
   what = what or 'tensor'
   if torch.typename(t) ~= 'torch.' .. T .. 'Tensor' then
      error(what .. ': type ' .. tostring(torch.typename(t)) .. ', want torch.' .. T .. 'Tensor', 2)
   end
   local sizes, values = flatten(want)
   local got_sizes = t:dim() > 0 and t:size():totable() or {}
   if list_str(got_sizes) ~= list_str(sizes) then
      error(what .. ': sizes ' .. list_str(got_sizes) .. ', want ' .. list_str(sizes), 2)
   end
   local got = elements(t)
   if list_str(got) ~= list_str(values) then
      error(what .. ': elements ' .. list_str(got) .. ', want ' .. list_str(values), 2)
   end
end

-- f() raises exactly `message`.
function H.err(message, f, ...)
   local ok, got = pcall(f, ...)
   if ok then error('expected the error ' .. show(message) .. ', but the call succeeded', 2) end
   if got ~= message then
      error('error message: got ' .. show(got) .. ', want ' .. show(message), 2)
   end
end

-- The same matrix of type T in several memory layouts, all reading as `data` (a 2-D table):
-- contiguous, transposed (the transpose of a contiguous transpose), narrowed out of a bigger
-- matrix, every other column of a wider one (no BLAS layout: copied), and, for a matrix whose
-- rows are all equal, expanded from one row (stride 0).
function H.layouts(T, data)
   local rows, cols = #data, #data[1]
   local out = {}
   out.contiguous = H.T(T, data)
   local tt = torch[T .. 'Tensor'](cols, rows)
   for i = 1, rows do for j = 1, cols do tt[j][i] = data[i][j] end end
   out.transposed = tt:t()
   local big = torch[T .. 'Tensor'](rows + 2, cols + 3):fill(-7)
   out.narrowed = big:narrow(1, 2, rows):narrow(2, 3, cols)
   out.narrowed:copy(out.contiguous)
   local wide = torch[T .. 'Tensor'](rows, 2 * cols):fill(-5)
   out.strided = wide:unfold(2, 1, 2):select(3, 1)
   out.strided:copy(out.contiguous)
   local same_rows = true
   for i = 2, rows do
      for j = 1, cols do if data[i][j] ~= data[1][j] then same_rows = false end end
   end
   if same_rows then out.expanded = H.T(T, { data[1] }):expand(rows, cols) end
   return out
end

-- Result tensors for a rows x cols result, in every layout the products must write through:
-- a fresh empty tensor, a transposed one, a narrowed view of a bigger matrix (the rest of which
-- must stay untouched: check with `H.untouched`) and a view with both strides above 1.
function H.targets(T, rows, cols)
   local out = {}
   out.empty = torch[T .. 'Tensor']()
   out.transposed = torch[T .. 'Tensor'](cols, rows):fill(99):t()
   local big = torch[T .. 'Tensor'](rows + 2, cols + 2):fill(-1)
   out.narrowed = big:narrow(1, 2, rows):narrow(2, 2, cols):fill(99)
   out.narrowed_parent = big
   local spread = torch[T .. 'Tensor'](2 * rows, 2 * cols):fill(-1)
   out.spread = spread:unfold(1, 1, 2):select(3, 1):unfold(2, 1, 2):select(3, 1):fill(99)
   out.spread_parent = spread
   return out
end

-- The border of `parent` around a narrowed (2, 2)-based view still holds -1.
function H.untouched(parent, rows, cols, what)
   for i = 1, parent:size(1) do
      for j = 1, parent:size(2) do
         local inside = i >= 2 and i < 2 + rows and j >= 2 and j < 2 + cols
         if not inside and parent[i][j] ~= -1 then
            error((what or 'parent') .. ': element ' .. i .. ',' .. j .. ' changed to ' .. parent[i][j], 2)
         end
      end
   end
end

return H
