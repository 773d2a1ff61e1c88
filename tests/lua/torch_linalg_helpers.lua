-- Fixtures specific to the torch_linalg_*.lua tests, on top of the shared assertions of
-- torch_test_helpers.lua (loaded with dofile). Every failure names what was checked and shows both
-- values; error(..., 2) points at the test line that failed.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or '') .. 'torch_test_helpers.lua')

-- The tensor types each test runs on: both float types (through BLAS) and integer types (the
-- plain loops).
H.linalg_types = { 'Double', 'Float', 'Int', 'Long' }

-- A tensor of type T ('Double', ...) from nested tables.
function H.T(T, data)
   return torch[T .. 'Tensor'](data)
end

-- t is a tensor of type T whose sizes and elements are those of the nested table `want` (an empty
-- table counts as a dimension of size 0); the elements compare by their printed form.
function H.matches(t, T, want, what)
   what = what or 'tensor'
   if torch.typename(t) ~= 'torch.' .. T .. 'Tensor' then
      error(what .. ': type ' .. tostring(torch.typename(t)) .. ', want torch.' .. T .. 'Tensor', 2)
   end
   local sizes, values = H.shape(want, true), H.flatten(want)
   local got_sizes = H.size_table(t)
   if H.list_str(got_sizes) ~= H.list_str(sizes) then
      error(what .. ': sizes ' .. H.list_str(got_sizes) .. ', want ' .. H.list_str(sizes), 2)
   end
   local got = H.flat(t)
   if H.list_str(got) ~= H.list_str(values) then
      error(what .. ': elements ' .. H.list_str(got) .. ', want ' .. H.list_str(values), 2)
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
