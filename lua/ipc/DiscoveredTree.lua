-- ipc.DiscoveredTree: an ipc.Tree whose root publishes its address for the other nodes to find
-- (torch-ipc's README, the Tree family).
--
--    require 'ipc.DiscoveredTree'(nodeIndex, numNodes, nodeHost, nodePort, publish, query [, base [, unpublish]])
--
-- The root (nodeIndex 1) listens on nodeHost:nodePort (nodePort nil or 0: any free port) and calls
-- publish(host, port); every other node calls query() until it returns host, port and connects
-- there. query may return nil while nothing is published yet, and a stale address is retried:
-- the node queries again when connecting fails, until ipc.connecttimeout seconds have passed.
-- Once every node has connected the root calls unpublish(), if given. One node gives an
-- ipc.NullTree.
local ipc = require 'libipc'
local sys = require 'sys'
local Tree = require 'ipc.Tree'
local NullTree = require 'ipc.NullTree'

local function fail(msg)
   error('ipc.DiscoveredTree: ' .. msg, 0)
end

local function seconds(name, default)
   local v = tonumber(ipc[name])
   if v and v > 0 then return v end
   return default
end

-- A client connected to the published address: query, connect, and on failure query again.
local function connectPublished(query, nodeIndex)
   local limit = seconds('connecttimeout', 30)
   local t0 = sys.clock()
   local lastErr = 'nothing was published'
   local pause = 0.005
   while true do
      local host, port = query()
      if host ~= nil and port ~= nil then
         local left = limit - (sys.clock() - t0)
         -- Short attempts, so that a stale address gives way to a fresh one.
         local ok, c = pcall(ipc.client, tostring(host), tonumber(port) or port, math.max(0.2, math.min(1, left)))
         if ok then return c end
         lastErr = string.format('the root published %s:%s, connecting failed: %s', tostring(host), tostring(port), tostring(c))
      end
      if sys.clock() - t0 > limit then
         fail(string.format('node %d found no root to connect to within %g s (ipc.connecttimeout): %s',
            nodeIndex, limit, lastErr))
      end
      sys.sleep(pause)
      pause = math.min(pause * 2, 0.1)
   end
end

local function DiscoveredTree(nodeIndex, numNodes, nodeHost, nodePort, publish, query, base, unpublish)
   Tree.checkNodes('DiscoveredTree', nodeIndex, numNodes)
   if numNodes == 1 then return NullTree() end
   nodeHost = nodeHost or '127.0.0.1'
   if nodeIndex == 1 then
      if type(publish) ~= 'function' then fail('the root needs a publish(host, port) function') end
      local server, port = ipc.server(nodeHost, tonumber(nodePort) or 0)
      local ok, err = pcall(function()
         publish(nodeHost, port)
         server:clients(numNodes - 1, function() end)
      end)
      if unpublish then pcall(unpublish) end
      if not ok then
         server:close()
         error(err, 0)
      end
      local okt, tree = pcall(Tree, 1, numNodes, base, server, nil, nodeHost, port)
      if not okt then
         server:close()
         error(tree, 0)
      end
      return tree
   end
   if type(query) ~= 'function' then fail('a node other than the root needs a query() function') end
   local client = connectPublished(query, nodeIndex)
   local ok, tree = pcall(Tree, nodeIndex, numNodes, base, nil, client, nodeHost, nodePort)
   if not ok then
      client:close()
      error(tree, 0)
   end
   return tree
end

return DiscoveredTree
