-- argcheck.env: the type predicates the generated checkers use.
--
-- env.istype(value, typename) and env.type(value) may be replaced by the user (the class package
-- does so). A checker captures env.istype when it is created, so a later replacement only affects
-- checkers created afterwards; the error text (env.type) is looked up at each failure.

local env = {}

-- The name a metatable gives its objects, if any (without triggering __index).
local function declared_name(value)
   local mt = getmetatable(value)
   if type(mt) == 'table' then
      local name = rawget(mt, '__typename')
      if name ~= nil then return name end
   end
   return nil
end

function env.istype(value, typename)
   local name = declared_name(value)
   if name ~= nil then
      return name == typename
   end
   return type(value) == typename
end

function env.type(value)
   local name = declared_name(value)
   if name ~= nil then return name end
   return type(value)
end

-- With torch around, a type name is a Lua pattern over torch type names: a spec that is plain
-- text must name the whole type ('torch.Long' does not match torch.LongTensor), while a real
-- pattern may match part of it ('torch.*Tensor', '.*Long'). Parent classes count too.
local has_torch = pcall(require, 'torch')
if has_torch and type(torch) == 'table' then
   local function spec_accepts(name, spec)
      local hit = name:match(spec)
      if hit == nil then return false end
      return hit ~= spec or hit == name
   end

   function env.istype(value, typename)
      local name = torch.typename(value)
      if not name then
         return type(value) == typename
      end
      if spec_accepts(name, typename) then
         return true
      end
      -- the registered metatable of that type, then its ancestors
      local seen = {}
      local mt = torch.getmetatable(name)
      while type(mt) == 'table' and not seen[mt] do
         seen[mt] = true
         local tn = mt.__typename
         if type(tn) == 'string' and spec_accepts(tn, typename) then
            return true
         end
         mt = getmetatable(mt)
      end
      -- runtimes whose class metatables chain through __index rather than the metatable itself
      if torch.isTypeOf then
         local ok, res = pcall(torch.isTypeOf, value, typename)
         if ok and res then return true end
      end
      return false
   end

   function env.type(value)
      return torch.type(value)
   end
end

return env
