-- ipc.StaticTree: an ipc.Tree whose root is at an address every node knows in advance
-- (torch-ipc's README, the Tree family).
--
--    require 'ipc.StaticTree'(nodeIndex, numNodes, nodeHost, nodePort, rootHost, rootPort [, base])
--
-- The root (nodeIndex 1) listens on nodeHost:nodePort (nodePort nil or 0: rootPort); every other
-- node connects to rootHost:rootPort (retrying for ipc.connecttimeout seconds, so the nodes may
-- start in any order) and listens for its own children on nodeHost:nodePort (nodePort nil or 0:
-- any free port). One node gives an ipc.NullTree.
local ipc = require 'libipc'
local Tree = require 'ipc.Tree'
local NullTree = require 'ipc.NullTree'

local function fail(msg)
   error('ipc.StaticTree: ' .. msg, 0)
end

return function(nodeIndex, numNodes, nodeHost, nodePort, rootHost, rootPort, base)
   Tree.checkNodes('StaticTree', nodeIndex, numNodes)
   if numNodes == 1 then return NullTree() end
   nodeHost = nodeHost or '127.0.0.1'
   if nodeIndex == 1 then
      -- Where the others will look: nodePort, or rootPort when nodePort is nil or 0.
      local p = tonumber(nodePort)
      if p == nil or p == 0 then p = tonumber(rootPort) or 0 end
      local server, port = ipc.server(nodeHost, p)
      local ok, tree = pcall(function()
         server:clients(numNodes - 1, function() end)
         return Tree(1, numNodes, base, server, nil, nodeHost, port)
      end)
      if not ok then
         server:close()
         error(tree, 0)
      end
      return tree
   end
   if rootPort == nil then fail('nodes other than the root need rootPort') end
   local okc, client = pcall(ipc.client, rootHost or '127.0.0.1', rootPort)
   if not okc then
      fail(string.format('node %d could not reach the root at %s:%s: %s', nodeIndex, tostring(rootHost or '127.0.0.1'),
         tostring(rootPort), tostring(client)))
   end
   local ok, tree = pcall(Tree, nodeIndex, numNodes, base, nil, client, nodeHost, nodePort)
   if not ok then
      client:close()
      error(tree, 0)
   end
   return tree
end
