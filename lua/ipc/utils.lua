-- Helpers shared by the ipc Lua modules.
local utils = {}

-- Visits every leaf of `t` (nested tables are descended into) in sorted key order, calling
-- `f(leaf)`; a non-nil result replaces the leaf in its table. Sorting keys of mixed types raises
-- Lua's comparison error, as table.sort does. A `t` that is not a table is itself the one leaf:
-- the result of f, or `t` when f returns nil. Returns `t`.
function utils.walkTable(t, f)
   if type(t) ~= 'table' then
      local r = f(t)
      if r ~= nil then return r end
      return t
   end
   local keys = {}
   for k in pairs(t) do keys[#keys + 1] = k end
   table.sort(keys)
   for _, k in ipairs(keys) do
      local v = t[k]
      if type(v) == 'table' then
         utils.walkTable(v, f)
      else
         local r = f(v)
         if r ~= nil then t[k] = r end
      end
   end
   return t
end

return utils
