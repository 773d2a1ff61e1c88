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

-- Raises `msg` at the user's line: the first Lua frame outside luatorch's own Lua files (whose
-- chunks are named `[luatorch]/...`), however deep inside them the check ran; with no position
-- when there is none (a function handed straight to pcall from C).
function check.raise(msg)
   local getinfo = debug.getinfo
   local level = 2
   while true do
      local info = getinfo(level, 'Sl')
      if info == nil then
         error(msg, 0)
      end
      if info.currentline > 0 and info.source:sub(1, 12) ~= '@[luatorch]/' then
         error(msg, level)
      end
      level = level + 1
   end
end

return check
