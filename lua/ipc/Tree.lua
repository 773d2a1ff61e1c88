-- ipc.Tree: allreduce and scatter over a tree of processes (or threads) joined by ipc.server and
-- ipc.client connections (torch-ipc's README, the Tree family).
--
--    local tree = require 'ipc.Tree'(nodeIndex, numNodes, base, server, client, host [, port [, buildTree]])
--
-- Node 1, the root, passes `server` (bound, usually after `server:clients(numNodes - 1, noop)`)
-- and no client; every other node passes a `client` connected to the root's server and no
-- server. `host` (and `port`, default: any free one) is where the node listens for its own
-- children; the root renumbers the nodes (a node keeps the index it asked for when that index is
-- free) and tells every node its parent, which it connects to.
--
--    tree.allReduce(value, reduce [, zero]) -> value, contributors
--    tree.scatter(value) -> value
--    tree.nodeIndex, tree.numNodes, tree.walkTable(t, f), tree.netStats(), tree.close()
--    tree.sharedMemory: whether allReduce can go through shared memory (see "One machine")
--    tree.socketAllreduce: whether it can go through the socket allreduce (see "Other machines")
--
-- Values are numbers, tensors or (nested) tables of them, walked in sorted key order; every node
-- passes a value of the same structure (tensors of the same type and sizes). Tensors are reduced
-- through reused buffers and overwritten in place on the way down; other leaves travel as messages.
-- A node that has run out of data calls `allReduce(nil, reduce, zero)`: it contributes `zero(leaf,
-- i)` for each leaf of its last value (a copy; default zeros) until every node has run out, and
-- `contributors` tells the others how many nodes gave real data.
--
-- The tree: `buildTree(base, numNodes, 0, depth - 1, link, addresses)` calls `link(parent, child)`
-- for each edge, `depth` being the least d with base^d >= numNodes. The default links node i+1 to
-- the first node of each of the base - 1 sibling subtrees at every level (torch-ipc linked only the
-- second one, which left nodes unconnected for base > 2); for base 2 it is torch-ipc's tree.
-- Children are visited shortest branch first on the way up, longest first on the way down.
--
-- Waiting: connecting and accepting give up after ipc.connecttimeout / ipc.accepttimeout seconds
-- with an error; a peer that dies makes the waiting calls raise instead of hanging.
--
-- One machine: when every node can map the root's shared-memory segment (ipc.shmtree, made at
-- set-up after the socket handshake, its name sent in the tree and removed from /dev/shm as soon
-- as every node has attached), allReduce with the default sum of numbers and tensors (not Half,
-- not CUDA) goes through it: a reduce-scatter and all-gather with futex wake-ups, instead of the
-- hops of the tree. "The same machine" is decided by trying, not by host names: a node on another
-- machine, in another /dev/shm or pid namespace cannot attach, and then the whole tree keeps its
-- sockets. Other reduce functions, other leaves, and scatter always go over the sockets (every
-- node's call goes the same way: one node's asking for the sockets sends every node there). The
-- sums of the shared-memory path add the nodes' values in node order, identical on every node.
-- LUATORCH_TREE_SHM=0 turns it off. A single number or contiguous tensor takes one native call.
--
-- Other machines: the same default sums go over links of their own (ipc.treenet, set up beside
-- the message sockets, authenticated the same way): the small leaves in one message that also
-- lets the nodes agree on the path, the large ones by a ring (reduce-scatter and all-gather) or
-- a pipelined tree (chunks overlap on the hops), in place. LUATORCH_TREE_ALGO=ring or tree forces
-- one; LUATORCH_TREE_NET=0 keeps every call on the message sockets (torch-ipc's hop by hop).
-- tree.socketAllreduce tells whether the links are there (they are dropped when the shared
-- memory serves).
local torch = require 'torch'

local Setup = require 'ipc.TreeSetup'

local Tree = {}
Tree.depthFor, Tree.allPairs, Tree.makeTree = Setup.depthFor, Setup.allPairs, Setup.makeTree
local describe, visit = Setup.describe, Setup.visit
local setupRoot, setupNode = Setup.setupRoot, Setup.setupNode
local allPairs = Setup.allPairs

local fail, isInteger = Setup.fail, Setup.isInteger

local function isTensor(x)
   return torch.isTensor(x)
end

-------------------------------------------------------------------------------------------------
-- Walking tables: leaves in sorted key order (numbers, then strings, then false and true), the
-- same order in every process.

local KEY_RANK = { number = 1, string = 2, boolean = 3 }

local function keyLess(a, b)
   local ra, rb = KEY_RANK[type(a)], KEY_RANK[type(b)]
   if ra ~= rb then return ra < rb end
   if ra == 3 then return (not a) and b end
   return a < b
end

local function sortedKeys(t, fname)
   local keys = {}
   for k in pairs(t) do
      if not KEY_RANK[type(k)] then
         fail(fname, 'cannot walk a table with a ' .. type(k) .. ' key (keys must be numbers, strings or booleans)')
      end
      keys[#keys + 1] = k
   end
   table.sort(keys, keyLess)
   return keys
end

-- Calls visit(parent, key, leaf) for every non-table value under t, in sorted key order.
local function eachLeaf(t, visit, fname, open)
   open[t] = true
   for _, k in ipairs(sortedKeys(t, fname)) do
      local v = t[k]
      if type(v) == 'table' then
         if open[v] then fail(fname, 'the value holds a cycle (a table inside itself)') end
         eachLeaf(v, visit, fname, open)
      else
         visit(t, k, v)
      end
   end
   open[t] = nil
end

-- ipc.utils.walkTable: f(leaf) for every leaf; a non-nil result replaces the leaf.
local function walkTable(t, f)
   if type(t) ~= 'table' then fail('walkTable', 'expected a table, got ' .. type(t)) end
   eachLeaf(t, function(p, k, v)
      local r = f(v)
      if r ~= nil then p[k] = r end
   end, 'walkTable', {})
   return t
end

do
   local ok, utils = pcall(require, 'ipc.utils')
   if ok and type(utils) == 'table' and type(utils.walkTable) == 'function' then
      Tree.walkTable = utils.walkTable
   else
      Tree.walkTable = walkTable
   end
end

-- The leaves of a value as two lists, parents[i][keys[i]] being leaf i.
local function flatten(value, fname)
   local parents, keys = {}, {}
   eachLeaf(value, function(p, k)
      local n = #keys + 1
      parents[n], keys[n] = p, k
   end, fname, {})
   return parents, keys
end

-- A copy of a value's tables and tensors (other leaves are values already).
local function deepCopy(v)
   if type(v) == 'table' then
      local c = {}
      for k, x in pairs(v) do c[k] = deepCopy(x) end
      return c
   elseif isTensor(v) then
      return v:clone()
   end
   return v
end


-------------------------------------------------------------------------------------------------
-- Transfers of the leaves.

local function sameShape(a, b)
   local n = a:nDimension()
   if n ~= b:nDimension() then return false end
   for d = 1, n do
      if a:size(d) ~= b:size(d) then return false end
   end
   return true
end

-- A contiguous tensor of leaf's type and sizes, reused between calls (slot i of cache).
local function buffer(cache, i, leaf)
   local t = cache[i]
   if t == nil or t:type() ~= leaf:type() or not sameShape(t, leaf) then
      t = leaf.new():resizeAs(leaf)
      cache[i] = t
   end
   return t
end

local function sendLeaf(conn, leaf)
   if isTensor(leaf) and not leaf:isContiguous() then
      leaf = leaf:contiguous()
   end
   conn:send(leaf)
end

-- Leaf i as received from conn: into a buffer for tensors, as a message otherwise.
local function recvLeaf(conn, leaf, i, cache)
   if isTensor(leaf) then
      return conn:recv(buffer(cache, i, leaf))
   end
   local v = conn:recv()
   if type(v) == 'table' then
      error(string.format('the values differ in structure: leaf %d is a %s here, the peer sent %s',
         i, type(leaf), describe(v)), 0)
   end
   return v
end

-- Leaf i received from conn into the leaf itself (tensors), or its new value (others).
local function recvInto(conn, leaf, i, cache)
   if isTensor(leaf) then
      if leaf:isContiguous() then
         conn:recv(leaf)
      else
         leaf:copy(conn:recv(buffer(cache, i, leaf)))
      end
      return nil
   end
   return recvLeaf(conn, leaf, i, cache)
end

local function recvTrailer(conn, n)
   local t = conn:recv()
   if type(t) ~= 'table' or t.leaves ~= n or type(t.numDone) ~= 'number' then
      if type(t) == 'table' and type(t.leaves) == 'number' then
         error(string.format('the values differ in structure: %d leaves here, %d at the peer', n, t.leaves), 0)
      end
      error(string.format('the values differ in structure: expected the end of %d leaves, the peer sent %s',
         n, describe(t)), 0)
   end
   return t.numDone
end

-------------------------------------------------------------------------------------------------

-- The tensor types the shared-memory path sums (Half has no maths; CUDA tensors take the sockets).
local SHM_TYPES = {
   ['torch.ByteTensor'] = true, ['torch.CharTensor'] = true, ['torch.ShortTensor'] = true,
   ['torch.IntTensor'] = true, ['torch.LongTensor'] = true, ['torch.FloatTensor'] = true,
   ['torch.DoubleTensor'] = true,
}

local function defaultReduce(a, b)
   if isTensor(a) then return a:add(b) end
   return a + b
end

local function defaultZero(leaf)
   if isTensor(leaf) then return leaf:zero() end
   if type(leaf) == 'number' then return 0 end
   fail('Tree.allReduce', 'no zero function for a ' .. type(leaf) .. ' leaf; pass zero(leaf, i)')
end

-- Replaces every leaf by zero(leaf, i) (in place for tensors by default).
local function zeroLeaves(parents, keys, zero)
   zero = zero or defaultZero
   for i = 1, #keys do
      local p, k = parents[i], keys[i]
      local z = zero(p[k], i)
      if z ~= nil then p[k] = z end
   end
end

-- For NullTree: a copy of `value` with every leaf zeroed.
function Tree.zeros(value, zero)
   local wrapped = type(value) ~= 'table'
   local v = deepCopy(wrapped and { value } or value)
   local parents, keys = flatten(v, 'Tree.allReduce')
   zeroLeaves(parents, keys, zero)
   if wrapped then v = v[1] end
   return v
end

-- The checks every tree constructor makes on its node index and count (`fname` names it).
function Tree.checkNodes(fname, nodeIndex, numNodes)
   if not (isInteger(numNodes) and numNodes >= 1) then
      fail(fname, 'numNodes must be a positive integer, got ' .. tostring(numNodes))
   end
   if not (isInteger(nodeIndex) and nodeIndex >= 1 and nodeIndex <= numNodes) then
      fail(fname, string.format('nodeIndex must be an integer in 1..%d, got %s', numNodes, tostring(nodeIndex)))
   end
end

local function construct(nodeIndex, numNodes, base, server, client, host, port, buildTree)
   local F = 'Tree'
   Tree.checkNodes(F, nodeIndex, numNodes)
   base = base or 2
   if not (isInteger(base) and base >= 2) then fail(F, 'base must be an integer >= 2, got ' .. tostring(base)) end
   if buildTree ~= nil and type(buildTree) ~= 'function' then
      fail(F, 'buildTree must be a function, got ' .. type(buildTree))
   end
   host = host or '127.0.0.1'
   local isRoot = server ~= nil and client == nil
   if nodeIndex == 1 and not isRoot then
      fail(F, 'node 1 is the root: pass its bound server and no client')
   end
   if not isRoot and client == nil then
      fail(F, string.format('node %d needs a client connected to the root (or, as the root, a server)', nodeIndex))
   end
   if isRoot then nodeIndex = 1 end

   local self = {
      nodeIndex = nodeIndex,
      numNodes = numNodes,
      base = base,
      server = isRoot and server or nil,
      client = (not isRoot) and client or nil,
   }
   if numNodes > 1 then
      local ok, err
      if isRoot then
         local p = port
         if p == nil and type(server.port) == 'function' then p = server:port() end
         ok, err = pcall(setupRoot, self, host, tonumber(p) or 0, buildTree or allPairs)
      else
         ok, err = pcall(setupNode, self, host, port)
      end
      if not ok then
         if self.shm then pcall(self.shm.close, self.shm); self.shm = nil end
         if self.net then pcall(self.net.close, self.net); self.net = nil end
         fail(F, string.format('node %d%s setting up the tree: %s', self.nodeIndex, isRoot and ' (root)' or '',
            (tostring(err):gsub('^ipc%.Tree: ', ''))))
      end
   elseif isRoot then
      self.server = nil
   end

   local tree = { nodeIndex = self.nodeIndex, numNodes = numNodes, walkTable = Tree.walkTable,
      sharedMemory = self.shm ~= nil, socketAllreduce = self.net ~= nil }
   local upCache, downCache = {}, {}
   local last, lastWrapped -- the last value given, for allReduce(nil)
   local me = 'node ' .. self.nodeIndex

   -- Runs fn(...) and raises a message naming this node, the step and the peer.
   local function guarded(fname, step, who, fn, ...)
      local ok, err = pcall(fn, ...)
      if not ok then
         fail(fname, string.format('%s, %s %s: %s', me, step, who, tostring(err)))
      end
   end

   -- Through the shared-memory segment (self.shm) or the socket allreduce's links (self.net):
   -- the number of nodes done, or nil when this call goes over the message sockets (on every
   -- node: they agree in the call).
   local shmLeaves, shmCopies = {}, {}
   -- The one-call path of a small sum (one number or tensor): see ipc.shmtree's header.
   local nativeGroup = self.shm or self.net
   local nativeOne = nativeGroup and nativeGroup:one()
   local function nativeFailed(g, err)
      local path = g == self.shm and 'shared-memory' or 'socket'
      fail('Tree.allReduce', string.format('%s, in the %s allreduce: %s', me, path,
         (tostring(err):gsub('^ipc%.%a+:allreduce: ', ''))))
   end
   local function nativeStep(g, parents, keys, reduce, numDone)
      local n = #keys
      local leaves, fast = shmLeaves, reduce == defaultReduce
      leaves[1] = numDone
      for i = 1, n do
         local v = parents[i][keys[i]]
         if type(v) == 'number' then
            leaves[i + 1] = v
         elseif SHM_TYPES[torch.type(v)] then
            if not v:isContiguous() then
               local b = buffer(upCache, i, v):copy(v)
               shmCopies[i] = b
               v = b
            end
            leaves[i + 1] = v
         else
            fast = false
            break
         end
      end
      for i = #leaves, n + 2, -1 do leaves[i] = nil end
      local ok, summed = pcall(g.allreduce, g, fast and leaves or nil)
      if not ok then
         for i in pairs(shmCopies) do shmCopies[i] = nil end
         nativeFailed(g, summed)
      end
      if summed then
         for i = 1, n do
            local p, k = parents[i], keys[i]
            local v = leaves[i + 1]
            if type(v) == 'number' then
               p[k] = v
            elseif shmCopies[i] then
               p[k]:copy(shmCopies[i])
            end
         end
      end
      local total = leaves[1]
      for i in pairs(shmCopies) do shmCopies[i] = nil end
      for i = 1, #leaves do leaves[i] = nil end
      if summed then return total end
      return nil
   end

   -- One reduction over the tree; returns the number of nodes done.
   local function reduceStep(parents, keys, reduce, numDone, sockets)
      local n = #keys
      local g = self.shm or self.net
      if g and not sockets then
         local done = nativeStep(g, parents, keys, reduce, numDone)
         if done then return done end
      end
      local srv, cli = self.server, self.client
      if srv then
         -- Up, shortest branch first.
         visit(srv, nil, function(c)
            guarded('Tree.allReduce', 'receiving from', 'child node ' .. tostring(c:tag()), function()
               for i = 1, n do
                  local p, k = parents[i], keys[i]
                  local got = recvLeaf(c, p[k], i, upCache)
                  local r = reduce(p[k], got)
                  if r ~= nil then
                     if r == got and isTensor(got) then r = got:clone() end
                     p[k] = r
                  end
               end
               numDone = numDone + recvTrailer(c, n)
            end)
         end)
      end
      if cli then
         guarded('Tree.allReduce', 'exchanging with', self.parentWho, function()
            for i = 1, n do sendLeaf(cli, parents[i][keys[i]]) end
            cli:send({ numDone = numDone, leaves = n })
            for i = 1, n do
               local p, k = parents[i], keys[i]
               local r = recvInto(cli, p[k], i, downCache)
               if r ~= nil then p[k] = r end
            end
            numDone = recvTrailer(cli, n)
         end)
      end
      if srv then
         -- Down, longest branch first.
         visit(srv, nil, function(c)
            guarded('Tree.allReduce', 'sending to', 'child node ' .. tostring(c:tag()), function()
               for i = 1, n do sendLeaf(c, parents[i][keys[i]]) end
               c:send({ numDone = numDone, leaves = n })
            end)
         end, true)
      end
      return numDone
   end

   local lastBox = {}
   function tree.allReduce(value, reduce, zero)
      reduce = reduce or defaultReduce
      if type(reduce) ~= 'function' then
         fail('Tree.allReduce', 'reduce must be a function, got ' .. type(reduce))
      end
      if zero ~= nil and type(zero) ~= 'function' then
         fail('Tree.allReduce', 'zero must be a function, got ' .. type(zero))
      end
      if value == nil then
         -- Out of data: zeros shaped like the last value, until every node is out.
         if last == nil then
            fail('Tree.allReduce', me .. ' has no value and gave none before: allReduce(nil) contributes zeros '
               .. 'shaped like the last value, so it needs an earlier call with one')
         end
         local v = deepCopy(last)
         local parents, keys = flatten(v, 'Tree.allReduce')
         local numDone
         repeat
            zeroLeaves(parents, keys, zero)
            numDone = reduceStep(parents, keys, reduce, 1)
         until numDone >= numNodes
         if lastWrapped then v = v[1] end
         return v, numNodes - numDone
      end
      local wrapped = type(value) ~= 'table'
      local sockets = false
      if wrapped and nativeOne and reduce == defaultReduce then
         -- One number or contiguous tensor, the default sum: one native call, no walk, no garbage.
         local total, sum = nativeOne(value)
         if total then
            lastBox[1] = value
            last, lastWrapped = lastBox, true
            return sum, numNodes - total
         elseif total == false then
            -- Every node's call goes over the sockets now (it has agreed on that already).
            sockets = true
         elseif sum ~= nil then
            nativeFailed(nativeGroup, sum)
         end
      end
      local v = wrapped and { value } or value
      local parents, keys = flatten(v, 'Tree.allReduce')
      local numDone = reduceStep(parents, keys, reduce, 0, sockets)
      last, lastWrapped = v, wrapped
      if wrapped then v = v[1] end
      return v, numNodes - numDone
   end

   function tree.scatter(value)
      local wrapped = type(value) ~= 'table'
      local v = wrapped and { value } or value
      local parents, keys = flatten(v, 'Tree.scatter')
      local n = #keys
      if self.client then
         local cli = self.client
         guarded('Tree.scatter', 'receiving from', self.parentWho, function()
            for i = 1, n do
               local p, k = parents[i], keys[i]
               local r = recvInto(cli, p[k], i, downCache)
               if r ~= nil then p[k] = r end
            end
            recvTrailer(cli, n)
         end)
      end
      if self.server then
         visit(self.server, nil, function(c)
            guarded('Tree.scatter', 'sending to', 'child node ' .. tostring(c:tag()), function()
               for i = 1, n do sendLeaf(c, parents[i][keys[i]]) end
               c:send({ numDone = 0, leaves = n })
            end)
         end, true)
      end
      if wrapped then v = v[1] end
      return v
   end

   function tree.netStats()
      if self.server then print(self.server:netStats()) end
      if self.client then print(self.client:netStats()) end
   end

   -- Closes this node's connections (its children and parent then see it leave).
   function tree.close()
      nativeOne, nativeGroup = nil, nil
      if self.shm then pcall(self.shm.close, self.shm); self.shm = nil end
      if self.net then pcall(self.net.close, self.net); self.net = nil end
      tree.sharedMemory = false
      if self.server then pcall(self.server.close, self.server); self.server = nil end
      if self.client then pcall(self.client.close, self.client); self.client = nil end
   end

   return tree
end

return setmetatable(Tree, {
   __call = function(_, ...) return construct(...) end,
})
