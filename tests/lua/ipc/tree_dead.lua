-- A node that leaves: th ipc/tree_dead.lua NODE NUMNODES KEY [HOW]
-- The last node leaves right after the tree is set up, every other node's allReduce must raise
-- (naming the node that went away) instead of waiting forever. HOW: 'exit' (the default: it exits
-- with status 3; the others reduce with a function of their own), 'kill' (it is killed with
-- SIGKILL; the others use the default sum, the shared-memory path), 'midway' (it takes part in
-- a few large allreduces, then is killed while the others are in the next one). Each survivor
-- prints "raised: <message>"; the root prints "pid <its pid>" on stderr.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
require 'tree_helpers'
local ipc = require 'libipc'

local node, n, key, how = tonumber(arg[1]), tonumber(arg[2]), arg[3], arg[4] or 'exit'
local tree = require 'ipc.LocalhostTree'(node, n, key)
if tree.nodeIndex == 1 then io.stderr:write('pid ' .. ipc.getpid() .. '\n') end
local function killed()
   io.stdout:flush()
   os.execute('kill -9 ' .. ipc.getpid())
   os.exit(4) -- not reached
end
local x = torch.FloatTensor(3 * 262144 + 11):fill(1)
if how == 'midway' then
   for _ = 1, 3 do tree.allReduce(x:fill(1)) end
end
if tree.nodeIndex == n then
   if how == 'exit' then os.exit(3) end
   killed()
end
local ok, err
if how == 'exit' then
   ok, err = pcall(tree.allReduce, torch.Tensor(1000):fill(1), function(a, b) return a:add(b) end)
else
   ok, err = pcall(tree.allReduce, x)
end
if ok then
   print('no error')
   os.exit(1)
end
print('raised: ' .. tostring(err):gsub('\n', ' '))
