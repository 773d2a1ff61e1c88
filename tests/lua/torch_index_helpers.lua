-- Assertions shared by the torch_index_*.lua scripts (loaded with dofile).
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
   if type(t) == 'table' then
      out[#out + 1] = #t
      if type(t[1]) == 'table' then shape(t[1], out) end
   end
   return out
end

-- `t` has exactly the sizes and values of the nested table `expected` (and type `typename` when
-- given). Values are compared exactly unless `tol` is given.
function H.same(t, expected, typename, tol)
   assert(torch.isTensor(t), 'not a tensor: ' .. tostring(t))
   if typename then
      assert(torch.type(t) == typename, 'type ' .. torch.type(t) .. ', expected ' .. typename)
   end
   local want = shape(expected)
   local got = t:dim() > 0 and t:size():totable() or {}
   assert(table.concat(got, 'x') == table.concat(want, 'x'),
      'size ' .. table.concat(got, 'x') .. ', expected ' .. table.concat(want, 'x'))
   local a, b = flatten(t:totable(), {}), flatten(expected, {})
   for i = 1, #b do
      local ok = (tol and math.abs(a[i] - b[i]) <= tol) or a[i] == b[i]
         or (a[i] ~= a[i] and b[i] ~= b[i])
      assert(ok, string.format('element %d is %.17g, expected %.17g', i, a[i], b[i]))
   end
end

-- Calling f raises exactly `message`.
function H.fails(message, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error: ' .. message)
   assert(err == message, 'error was\n  ' .. tostring(err) .. '\nexpected\n  ' .. message)
end

return H
