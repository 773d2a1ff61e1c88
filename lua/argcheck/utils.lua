-- argcheck.utils: upvalue access by name, shallow table copy.

local utils = {}

-- index of the upvalue called `name` in `func`, or nil
local function upvalue_index(func, name)
   local i = 1
   while true do
      local uname = debug.getupvalue(func, i)
      if uname == nil then return nil end
      if uname == name then return i end
      i = i + 1
   end
end

-- Replaces the upvalue `name` of `func`; returns its previous value. Unknown names are an error
-- unless `quiet`.
function utils.setupvalue(func, name, newvalue, quiet)
   local i = upvalue_index(func, name)
   if i then
      local _, old = debug.getupvalue(func, i)
      debug.setupvalue(func, i, newvalue)
      return old
   end
   if not quiet then
      error(string.format('unknown upvalue <%s>', name))
   end
end

-- The value of the upvalue `name` of `func`. Unknown names are an error unless `quiet`.
function utils.getupvalue(func, name, quiet)
   local i = upvalue_index(func, name)
   if i then
      local _, value = debug.getupvalue(func, i)
      return value
   end
   if not quiet then
      error(string.format('unknown upvalue <%s>', name))
   end
end

function utils.duptable(tbl)
   local copy = {}
   for k, v in pairs(tbl) do copy[k] = v end
   return copy
end

return utils
