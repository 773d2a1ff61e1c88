-- totem's comparisons of tensors, storages, tables and general values.
--
-- The are* functions return (ok, message): whether the comparison holds (inverted when `negate`
-- is true) and, when it does not, what differs. The assert* functions raise that message instead.
-- Tolerances bound the largest element-wise (or numeric) absolute difference; default 0.

require 'torch'
local totem = rawget(_G, 'totem') or require 'totem'

-- Integer types whose differences could wrap around, or that lack abs(): compared as doubles.
local AS_DOUBLE = {
   ['torch.ByteTensor'] = true,
   ['torch.CharTensor'] = true,
   ['torch.ShortTensor'] = true,
}

local function comparable(t)
   if AS_DOUBLE[torch.type(t)] or not t.abs then
      return t:double()
   end
   return t
end

-- tensors known to have the same type and size, with at least one element
local function compare_contents(ta, tb, tolerance, negate, what)
   local a, b = comparable(ta), comparable(tb)
   local worst = a:clone():add(-1, b):abs():max()
   local ok = worst <= tolerance
   if negate then ok = not ok end
   if ok then return true end
   return false, string.format('%s%s violation: max diff=%s, tolerance=%s',
      what, negate and 'NE(==)' or 'EQ(==)', tostring(worst), tostring(tolerance))
end

local function check_tolerance(tolerance)
   assert(type(tolerance) == 'number',
      'Third argument should be a number describing a tolerance on equality for a single element')
end

function totem.areTensorsEq(ta, tb, tolerance, negate)
   negate = negate or false
   tolerance = tolerance or 0
   assert(torch.isTensor(ta), 'First argument should be a Tensor')
   assert(torch.isTensor(tb), 'Second argument should be a Tensor')
   check_tolerance(tolerance)

   if ta:dim() ~= tb:dim() then
      return negate, 'The tensors have different dimensions'
   end
   if ta:type() ~= tb:type() then
      return negate, 'The tensors have different types'
   end
   if ta:dim() == 0 then
      -- two empty tensors are equal
      return not negate, 'Both tensors are empty'
   end
   if not ta:isSameSizeAs(tb) then
      return negate, 'The tensors have different sizes'
   end
   return compare_contents(ta, tb, tolerance, negate, 'Tensor')
end

function totem.assertTensorEq(ta, tb, tolerance)
   return assert(totem.areTensorsEq(ta, tb, tolerance))
end

function totem.areTensorsNe(ta, tb, tolerance)
   return totem.areTensorsEq(ta, tb, tolerance, true)
end

function totem.assertTensorNe(ta, tb, tolerance)
   return assert(totem.areTensorsNe(ta, tb, tolerance))
end

-- the tensor type viewing each storage type
local TENSOR_OF = {
   ['torch.ByteStorage'] = 'torch.ByteTensor',
   ['torch.CharStorage'] = 'torch.CharTensor',
   ['torch.ShortStorage'] = 'torch.ShortTensor',
   ['torch.IntStorage'] = 'torch.IntTensor',
   ['torch.LongStorage'] = 'torch.LongTensor',
   ['torch.FloatStorage'] = 'torch.FloatTensor',
   ['torch.DoubleStorage'] = 'torch.DoubleTensor',
}

local function tensor_view(storage)
   local ctor = torch[(TENSOR_OF[torch.type(storage)] or ''):gsub('^torch%.', '')]
   assert(ctor, 'unsupported storage type ' .. torch.type(storage))
   return ctor(storage)
end

function totem.areStoragesEq(sa, sb, tolerance, negate)
   negate = negate or false
   tolerance = tolerance or 0
   assert(torch.isStorage(sa), 'First argument should be a Storage')
   assert(torch.isStorage(sb), 'Second argument should be a Storage')
   check_tolerance(tolerance)

   if sa:size() ~= sb:size() then
      return negate, 'The storages have different sizes'
   end
   if torch.type(sa) ~= torch.type(sb) then
      return negate, 'The storages have different types'
   end
   if sa:size() == 0 then
      return not negate, 'Both storages are empty'
   end
   return compare_contents(tensor_view(sa), tensor_view(sb), tolerance, negate, 'Storage')
end

function totem.assertStorageEq(sa, sb, tolerance)
   return assert(totem.areStoragesEq(sa, sb, tolerance))
end

function totem.areStoragesNe(sa, sb, tolerance)
   return totem.areStoragesEq(sa, sb, tolerance, true)
end

function totem.assertStorageNe(sa, sb, tolerance)
   return assert(totem.areStoragesNe(sa, sb, tolerance))
end

-- General (deep) equality: the Lua types must match; numbers are compared with the tolerance,
-- tables key by key (recursively), tensors and storages element-wise, anything else with ==.
function totem.areEq(got, expected, tolerance, negate)
   negate = negate or false
   tolerance = tolerance or 0
   local kind = type(got)
   local violation = negate and 'NE(==)' or 'EQ(==)'
   if kind ~= type(expected) then
      local message
      if not negate then
         message = 'Arguments are not of the same type (got: ' .. kind .. ', expected: ' .. type(expected) .. ')'
      end
      return negate, message
   end
   if kind == 'number' then
      local diff = math.abs(got - expected)
      local ok = diff <= tolerance
      if negate then ok = not ok end
      if ok then return true end
      return false, string.format('%s%s violation: max diff=%s, tolerance=%s',
         kind, violation, tostring(diff), tostring(tolerance))
   end
   if kind == 'table' then
      return totem.areTablesEq(got, expected, tolerance, negate)
   end
   if torch.isTensor(got) then
      return totem.areTensorsEq(got, expected, tolerance, negate)
   end
   if torch.isStorage(got) then
      return totem.areStoragesEq(got, expected, tolerance, negate)
   end
   local ok = got == expected
   if negate then ok = not ok end
   if ok then return true end
   return false, string.format('%s%s violation: val1=%s, val2=%s', kind, violation, tostring(got), tostring(expected))
end

-- Tables are equal when every key of either holds equal values in both (see totem.areEq).
function totem.areTablesEq(t1, t2, tolerance, negate)
   negate = negate or false
   tolerance = tolerance or 0
   assert(type(t1) == 'table', 'First argument should be a Table')
   assert(type(t2) == 'table', 'Second argument should be a Table')
   check_tolerance(tolerance)

   for k, v in pairs(t2) do
      local ok, message = totem.areEq(t1[k], v, tolerance, false)
      if not ok then return negate, message end
   end
   for k, v in pairs(t1) do
      local ok, message = totem.areEq(v, t2[k], tolerance, false)
      if not ok then return negate, message end
   end
   return not negate, 'The tables are equal.'
end

function totem.assertTableEq(ta, tb, tolerance)
   return assert(totem.areTablesEq(ta, tb, tolerance))
end

function totem.assertTableNe(ta, tb, tolerance)
   return assert(totem.areTablesEq(ta, tb, tolerance, true))
end

return totem
