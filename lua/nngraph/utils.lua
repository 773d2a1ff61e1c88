-- Small helpers shared by the nngraph files.

local utils = {}

-- A torch object (its class name), or false/nil.
function utils.istorchclass(x)
   return type(x) == 'table' and torch.typename(x)
end

-- A plain Lua table (not a torch object).
function utils.istable(x)
   return type(x) == 'table' and not torch.typename(x)
end

-- The largest positive integer key (table.maxn), so that a nil hole in {a, nil, b} is noticed.
utils.tableMaxN = table.maxn or function(t)
   local n = 0
   for k in pairs(t) do
      if type(k) == 'number' and k > n then n = k end
   end
   return n
end

-- The message for a value found where an nngraph.Node was expected: element `idx` of the
-- argument list called `array` ('inputs', 'outputs').
function utils.expectingNodeErrorMessage(badVal, array, idx)
   if badVal == nil then
      return string.format('%s[%d] is nil (typo / bad index?)', array, idx)
   end
   if torch.isTypeOf(badVal, 'nn.Module') then
      return string.format('%s[%d] is an nn.Module, specifically a %s, but the only valid ' ..
         'thing to pass is an instance of nngraph.Node. Did you forget a second set of ' ..
         'parens, which convert a nn.Module to a nngraph.Node?', array, idx, torch.typename(badVal))
   end
   return string.format('%s[%d] should be an nngraph.Node but is of type %s', array, idx,
      torch.typename(badVal) or type(badVal))
end

return utils
