-- Argument checks shared by the Lua halves of our modules, with Torch-style messages.
local check = {}

-- A string argument (numbers are accepted and converted, as Lua's own string functions do).
-- `level` 3 blames the caller of the function that checks.
function check.string(fname, pos, v)
   if type(v) == 'number' then return tostring(v) end
   if type(v) ~= 'string' then
      error(fname .. ': bad argument #' .. pos .. ' (string expected, got ' .. type(v) .. ')', 3)
   end
   return v
end

return check
