-- Operations on "nested" values: a tensor, or a table whose values are nested values.

local nesting = {}

local isTensor = torch.isTensor

-- A deep copy (tensors cloned).
function nesting.cloneNested(obj)
   if isTensor(obj) then
      return obj:clone()
   end
   local copy = {}
   for k, v in pairs(obj) do
      copy[k] = nesting.cloneNested(v)
   end
   return copy
end

-- Sets every element of every tensor in obj to value.
function nesting.fillNested(obj, value)
   if isTensor(obj) then
      obj:fill(value)
      return
   end
   for _, v in pairs(obj) do
      nesting.fillNested(v, value)
   end
end

-- Gives output the structure and sizes of input: tensors resized, missing entries added as
-- copies of input's, entries input lacks dropped.
function nesting.resizeNestedAs(output, input)
   if isTensor(output) then
      output:resizeAs(input)
      return
   end
   for k, v in pairs(input) do
      if output[k] then
         nesting.resizeNestedAs(output[k], v)
      else
         output[k] = nesting.cloneNested(v)
      end
   end
   for k in pairs(output) do
      if not input[k] then
         output[k] = nil
      end
   end
end

-- Copies input's values into output, which must have the same structure (an entry of output
-- that input lacks is an error).
function nesting.copyNested(output, input)
   if isTensor(output) then
      output:copy(input)
      return
   end
   for k, v in pairs(input) do
      nesting.copyNested(output[k], v)
   end
   for k in pairs(output) do
      if not input[k] then
         error('key ' .. tostring(k) .. ' present in output but not in input')
      end
   end
end

-- output += input, entry by entry.
function nesting.addNestedTo(output, input)
   if isTensor(output) then
      output:add(input)
      return
   end
   for k, v in pairs(input) do
      assert(output[k] ~= nil, 'missing key')
      nesting.addNestedTo(output[k], v)
   end
end

return nesting
