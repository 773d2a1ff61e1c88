-- totem.TestSuite(): a torch.TestSuite (a table of tests refusing duplicate names).

local totem = rawget(_G, 'totem') or require 'totem'

function totem.TestSuite()
   return torch.TestSuite()
end

return totem.TestSuite
