-- totem: test helpers for Torch on top of torch.Tester.
--
--   require 'totem'                      -- defines the global `totem`
--   local tester = totem.Tester()        -- a torch.Tester with totem's extras
--   local tests = totem.TestSuite()
--   function tests.something() tester:eq(a, b, 'message', 1e-6) end
--   tester:add(tests):run()
--
-- totem.areTensorsEq & co. (see totem.asserts) are plain predicates returning (ok, message);
-- totem.nn (loaded on first use) checks nn modules: gradients, minibatches, type casts,
-- serialization.

require 'torch'

totem = {}

-- sub-packages loaded the first time they are used
local lazy = { nn = 'totem.nn' }

setmetatable(totem, {
   __index = function(self, key)
      local modname = lazy[key]
      if modname then
         require(modname)
         return rawget(self, key)
      end
   end
})

require 'totem.asserts'
require 'totem.Tester'
require 'totem.TestSuite'

return totem
