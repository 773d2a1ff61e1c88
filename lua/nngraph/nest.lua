-- nngraph.nest(value): one node standing for a nested structure of nodes. A node stays itself,
-- {node} becomes a JustTable over it, and a longer list an nn.Identity over the nested entries.

local function isNode(x)
   return torch.typename(x) == 'nngraph.Node'
end

local function nestOf(x)
   if isNode(x) then
      return x
   end
   if type(x) ~= 'table' or #x == 0 then
      error('what is this in the nest input? ' .. tostring(x))
   end
   if #x == 1 then
      return nngraph.JustTable()(x)
   end
   local parts = {}
   for i, child in ipairs(x) do
      parts[i] = nestOf(child)
   end
   return nn.Identity()(parts)
end

function nngraph.nest(...)
   local n = select('#', ...)
   assert(n <= 1, 'Use {input1, input2} to pass multiple inputs.')
   local x = ...
   assert(n > 0 and x ~= nil, 'Pass an input.')
   return nestOf(x)
end
