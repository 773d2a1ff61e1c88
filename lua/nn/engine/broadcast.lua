-- A parameter of per-element values (CAdd's bias, CMul's weight) against the input it applies
-- to: the sizes the module is given, the parameter seen in the input's shape, and the gradient
-- summed back to the parameter's.

local broadcast = {}

-- The sizes given to CAdd/CMul, as a LongStorage.
function broadcast.sizes(...)
   local args = { ... }
   local size = torch.LongStorage()
   if #args == 1 and torch.type(args[1]) == 'torch.LongStorage' then
      size:resize(#args[1]):copy(args[1])
   else
      size:resize(#args)
      for i = 1, #args do size[i] = args[i] end
   end
   return size
end

-- `param` (bias or weight) and `t` (the input, or a tensor shaped like it) seen with the same
-- number of dimensions: t as it is when param has its dimensions, else as batch x rest with
-- param as 1 x rest. Returns the param view expanded to t's view, and t's view.
function broadcast.expand(param, t)
   if param:dim() == t:dim() then
      return param:expandAs(t), t
   end
   local tv = t:contiguous():view(t:size(1), -1)
   return param:view(1, -1):expandAs(tv), tv
end

-- The sum of `t` over the dimensions along which `param` was broadcast, shaped like param.
function broadcast.sumTo(param, t)
   local _, tv = broadcast.expand(param, t)
   local p = param:dim() == t:dim() and param or param:view(1, -1)
   local s = tv
   for d = 1, s:dim() do
      if p:size(d) ~= s:size(d) then s = s:sum(d) end
   end
   return s:viewAs(param)
end

return broadcast
