-- A node that leaves: th ipc/tree_dead.lua NODE NUMNODES KEY
-- The last node exits (status 3) right after the tree is set up; every other node's allReduce must
-- raise (its child or parent went away; the failure spreads as the nodes that raise exit) instead
-- of waiting forever. Each survivor prints "raised: <message>".
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
require 'tree_helpers'

local node, n, key = tonumber(arg[1]), tonumber(arg[2]), arg[3]
local tree = require 'ipc.LocalhostTree'(node, n, key)
if tree.nodeIndex == n then os.exit(3) end
local ok, err = pcall(tree.allReduce, torch.Tensor(1000):fill(1), function(a, b) return a:add(b) end)
if ok then
   print('no error')
   os.exit(1)
end
print('raised: ' .. tostring(err):gsub('\n', ' '))
