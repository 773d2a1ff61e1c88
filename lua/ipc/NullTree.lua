-- ipc.NullTree: the tree of a single node (torch-ipc's), with the same members as
-- ipc.Tree. Nothing is sent anywhere: allReduce gives back its value and 1 contributor, scatter its
-- value. As in ipc.Tree, allReduce(nil, reduce, zero) gives zeros shaped like the last value (a
-- copy) and 0 contributors.
local Tree = require 'ipc.Tree'

return function()
   local last
   return {
      nodeIndex = 1,
      numNodes = 1,
      walkTable = Tree.walkTable,
      allReduce = function(value, _, zero)
         if value == nil then
            if last == nil then return nil, 0 end
            return Tree.zeros(last, zero), 0
         end
         last = value
         return value, 1
      end,
      scatter = function(value) return value end,
      netStats = function() end,
      close = function() end,
   }
end
