-- colorize.red(s) and friends: s wrapped in a colour and a reset. Follows trepl.colors, so
-- noColors() turns these into the identity.
local colors = require 'trepl.colors'
return setmetatable({}, {
   __index = function(_, name)
      return function(s)
         local c = colors[name]
         if c == nil then error('colorize: unknown colour ' .. tostring(name), 2) end
         return c .. tostring(s) .. colors.none
      end
   end,
})
