-- Assertions shared by the torch_core_*.lua tests: each failure names what was checked and shows
-- both values, and points at the line of the test that failed.

local H = {}

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

-- The elements of a tensor in logical (row-major) order, as a Lua list of numbers.
function H.flat(t)
   if t:dim() == 0 then return {} end
   return torch.DoubleTensor(t:nElement()):copy(t):storage():totable()
end

function H.sizes(t)
   if t:dim() == 0 then return {} end
   return t:size():totable()
end

local function list_eq(a, b)
   if #a ~= #b then return false end
   for i = 1, #a do
      if a[i] ~= b[i] then return false end
   end
   return true
end

local function list_str(l)
   local parts = {}
   for i, v in ipairs(l) do parts[i] = tostring(v) end
   return '{' .. table.concat(parts, ',') .. '}'
end

function H.list(got, want, what)
   if not list_eq(got, want) then
      error((what or 'list') .. ': got ' .. list_str(got) .. ', want ' .. list_str(want), 2)
   end
end

-- t has type `typename` (optional), sizes `sizes` and elements `values` (row-major).
function H.tensor(t, sizes, values, what, typename)
   what = what or 'tensor'
   if typename and torch.typename(t) ~= typename then
      error(what .. ': type ' .. tostring(torch.typename(t)) .. ', want ' .. typename, 2)
   end
   if not list_eq(H.sizes(t), sizes) then
      error(what .. ': sizes ' .. list_str(H.sizes(t)) .. ', want ' .. list_str(sizes), 2)
   end
   if values and not list_eq(H.flat(t), values) then
      error(what .. ': values ' .. list_str(H.flat(t)) .. ', want ' .. list_str(values), 2)
   end
end

-- f() must fail with a message containing `expected` (plain text, not a pattern).
function H.fails(f, expected, what)
   local ok, err = pcall(f)
   if ok then error((what or expected) .. ': no error was raised', 2) end
   err = tostring(err)
   if not err:find(expected, 1, true) then
      error((what or 'error') .. ': message ' .. show(err) .. ' does not contain ' .. show(expected), 2)
   end
   return err
end

-- Same underlying memory: writing through one is seen through the other.
function H.shares(a, b, what)
   if torch.pointer(a:storage()) ~= torch.pointer(b:storage()) then
      error((what or 'views') .. ': do not share a storage', 2)
   end
end

H.types = { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }

return H
