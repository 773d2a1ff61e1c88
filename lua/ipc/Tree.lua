-- ipc.Tree: allreduce and scatter over a tree of processes (or threads) joined by ipc.server and
-- ipc.client connections (reference/parallel_ipc.md B.11).
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
-- LUATORCH_TREE_SHM=0 turns it off.
local ipc = require 'libipc'
local torch = require 'torch'

local Tree = {}

local function fail(fname, msg)
   error('ipc.' .. fname .. ': ' .. msg, 0)
end

local function isInteger(x)
   return type(x) == 'number' and x == math.floor(x) and x > -2 ^ 53 and x < 2 ^ 53
end

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
-- Tree shapes.

-- The least d with base^d >= n (exact, in integers).
local function depthFor(n, base)
   local d, span = 0, 1
   while span < n do
      span = span * base
      d = d + 1
   end
   return d
end
Tree.depthFor = depthFor

-- Links the base^(depth+1) nodes index+1 .. index+base^(depth+1) (those up to n) into a tree rooted
-- at index+1: the root is the parent of the roots of the base-1 other subtrees of size base^depth.
local function allPairs(base, n, index, depth, link)
   if depth < 0 or index + 1 > n then return end
   local skip = 1
   for _ = 1, depth do skip = skip * base end
   for c = 1, base - 1 do
      local child = index + c * skip + 1
      if child > n then break end
      link(index + 1, child)
   end
   if depth > 0 then
      for c = 0, base - 1 do
         local start = index + c * skip
         if start + 1 > n then break end
         allPairs(base, n, start, depth - 1, link)
      end
   end
end
Tree.allPairs = allPairs

-- buildTree's result as a table: tree[k] = {parent = p, listen = #children, connect = address of
-- the parent}. Checks that it is one tree over 1..numNodes rooted at 1.
local function makeTree(buildTree, base, numNodes, addresses)
   local tree = {}
   for k = 1, numNodes do tree[k] = { listen = 0 } end
   local function link(parent, child)
      if not (isInteger(parent) and isInteger(child) and parent >= 1 and child >= 1
              and parent <= numNodes and child <= numNodes) then
         fail('Tree', string.format('buildTree linked nodes %s and %s, outside 1..%d',
            tostring(parent), tostring(child), numNodes))
      end
      if child == 1 or child == parent or tree[child].parent then
         fail('Tree', string.format('buildTree gave node %d a second parent (%d)', child, parent))
      end
      tree[child].parent = parent
      tree[child].connect = addresses[parent]
      tree[parent].listen = tree[parent].listen + 1
   end
   buildTree(base, numNodes, 0, depthFor(numNodes, base) - 1, link, addresses)
   for k = 2, numNodes do
      -- Every node reaches the root by following parents (no node left out, no cycle).
      local seen, j = {}, k
      while j ~= 1 do
         if not tree[j].parent then
            fail('Tree', string.format('buildTree left node %d without a parent (%d nodes, base %d)', j, numNodes, base))
         end
         if seen[j] then fail('Tree', 'buildTree made a cycle through node ' .. j) end
         seen[j] = true
         j = tree[j].parent
      end
   end
   return tree
end
Tree.makeTree = makeTree

-------------------------------------------------------------------------------------------------
-- Messages on a connection: expect a reply of a given form, or raise naming the step.

local function describe(v)
   if type(v) == 'table' then
      local parts = {}
      for k, x in pairs(v) do
         if #parts >= 4 then parts[#parts + 1] = '...'; break end
         parts[#parts + 1] = tostring(k) .. '=' .. tostring(x)
      end
      return '{' .. table.concat(parts, ', ') .. '}'
   end
   return type(v) == 'string' and string.format('%q', v) or tostring(v)
end

local function expect(conn, what, check, fname, who)
   local ok, v = pcall(conn.recv, conn)
   if not ok then fail(fname, string.format('waiting for %s from %s: %s', what, who, tostring(v))) end
   if not check(v) then
      fail(fname, string.format('expected %s from %s, got %s', what, who, describe(v)))
   end
   return v
end

local function send(conn, v, fname, who)
   local ok, err = pcall(conn.send, conn, v)
   if not ok then fail(fname, string.format('sending to %s: %s', who, tostring(err))) end
end

local function isQ(q) return function(v) return type(v) == 'table' and v.q == q end end
local function isString(s) return function(v) return v == s end end
local function isOrder(v) return type(v) == 'table' and isInteger(v.order) and v.order >= 1 end
local function isStart(v) return type(v) == 'table' and v.q == 'start' end

-- server:clients(fn [, nil, invert]) or, with n, server:clients(n, fn), without letting a Lua
-- error cross the native call (it would come out with a traceback in its message): the first
-- error skips the remaining clients and is raised once the call has returned.
local function visit(server, n, fn, invert)
   local err
   local function each(c)
      if err ~= nil then return end
      local ok, e = pcall(fn, c)
      if not ok then err = e end
   end
   if n then
      server:clients(n, each)
   else
      server:clients(each, nil, invert and 1 or nil)
   end
   if err ~= nil then error(err, 0) end
end

-------------------------------------------------------------------------------------------------
-- Set-up.

local function setupRoot(self, host, port, buildTree)
   local F = 'Tree'
   local server, n = self.server, self.numNodes
   -- 1. Every node's address and the index it asks for, in the order they connected.
   local infos = {}
   visit(server, n - 1, function(c)
      local id = #infos + 1
      c:id(id)
      local who = 'the node at ' .. tostring(c:address())
      send(c, { q = 'address?' }, F, who)
      infos[id] = expect(c, 'its address', function(v)
         return isQ('address')(v) and type(v.host) == 'string' and isInteger(v.port)
      end, F, who)
   end)
   if #infos ~= n - 1 then
      fail(F, string.format('%d nodes connected to the root, expected %d (numNodes - 1)', #infos, n - 1))
   end
   -- 2. Indexes: the one asked for when free, else the next free one.
   local taken, indexOf = { [1] = true }, {}
   for id, a in ipairs(infos) do
      local k = a.nodeIndex
      if isInteger(k) and k >= 2 and k <= n and not taken[k] then
         taken[k], indexOf[id] = true, k
      end
   end
   local free = 2
   for id = 1, #infos do
      if not indexOf[id] then
         while taken[free] do free = free + 1 end
         taken[free], indexOf[id] = true, free
      end
   end
   local addresses = { [1] = { host = host, port = port } }
   for id, a in ipairs(infos) do addresses[indexOf[id]] = { host = a.host, port = a.port } end
   visit(server, nil, function(c)
      c:tag(tostring(indexOf[c:id()]))
      send(c, { q = 'clientIndex', clientIndex = indexOf[c:id()] }, F, 'node ' .. indexOf[c:id()])
   end)
   -- 3. The tree, to everyone, with the shared-memory segment every node tries to attach.
   local tree = makeTree(buildTree, self.base, n, addresses)
   if os.getenv('LUATORCH_TREE_SHM') ~= '0' and type(ipc.shmtree) == 'function' then
      local okS, g, name, nonce = pcall(ipc.shmtree, n)
      if okS then
         self.shm = g
         tree.shm = { name = name, nonce = nonce }
      end
   end
   local okb, errb = pcall(server.broadcast, server, tree)
   if not okb then fail(F, 'sending the tree: ' .. tostring(errb)) end
   -- 4. The root's own children stay; the others leave for their parents. Children are ordered
   -- by the height of their branch.
   visit(server, nil, function(c)
      local k = indexOf[c:id()]
      if tree[k].parent ~= 1 then
         c:close()
      else
         send(c, 'order?', F, 'node ' .. k)
         local o = expect(c, 'its branch height ({order = n})', isOrder, F, 'node ' .. k)
         c:id(o.order)
      end
   end)
   -- 5. Start: every node has its children and its parent, and tells whether its whole branch
   -- attached the segment.
   visit(server, nil, function(c) send(c, 'start?', F, 'node ' .. c:tag()) end)
   local attached = true
   visit(server, nil, function(c)
      local v = expect(c, '"start"', isStart, F, 'node ' .. c:tag())
      attached = attached and v.shm == true
   end)
   if self.shm then
      self.shm:decide(attached)
      if not attached then
         self.shm:close()
         self.shm = nil
      end
   end
end

local function setupNode(self, host, port)
   local F = 'Tree'
   local parentWho = 'the root'
   local myServer, myPort = ipc.server(host, tonumber(port) or 0)
   local client = self.client
   local ok, err = pcall(function()
      expect(client, 'the address question', isQ('address?'), F, parentWho)
      send(client, { q = 'address', nodeIndex = self.nodeIndex, host = host, port = myPort }, F, parentWho)
      local r = expect(client, 'an index', function(v)
         return isQ('clientIndex')(v) and isInteger(v.clientIndex) and v.clientIndex >= 2 and v.clientIndex <= self.numNodes
      end, F, parentWho)
      self.nodeIndex = r.clientIndex
      local tree = expect(client, 'the tree', function(v)
         return type(v) == 'table' and type(v[self.nodeIndex]) == 'table'
      end, F, parentWho)
      if type(tree.shm) == 'table' and type(ipc.shmtree) == 'function' then
         -- Failing to attach (another machine) is no error: the tree keeps its sockets.
         local okS, g = pcall(ipc.shmtree, self.numNodes, self.nodeIndex, tree.shm.name, tree.shm.nonce)
         if okS then self.shm = g end
      end
      local mine = tree[self.nodeIndex]
      local height = 1
      if mine.listen > 0 then
         -- Children first (they come once their own subtrees are in place), then the parent.
         visit(myServer, mine.listen, function(c)
            local who = 'a child at ' .. tostring(c:address())
            send(c, 'order?', F, who)
            local o = expect(c, 'its branch height ({order = n})', isOrder, F, who)
            c:id(o.order)
            c:tag(tostring(o.nodeIndex or '?'))
            if o.order + 1 > height then height = o.order + 1 end
         end)
      else
         myServer:close()
         myServer = nil
      end
      if mine.parent ~= 1 then
         client:close()
         local a = mine.connect
         parentWho = string.format('parent node %d at %s:%s', mine.parent, tostring(a.host), tostring(a.port))
         local okc, c = pcall(ipc.client, a.host, a.port)
         if not okc then fail(F, 'connecting to ' .. parentWho .. ': ' .. tostring(c)) end
         client = c
         self.client = c
      else
         parentWho = 'the root (its parent)'
      end
      expect(client, 'the order question', isString('order?'), F, parentWho)
      send(client, { order = height, nodeIndex = self.nodeIndex }, F, parentWho)
      expect(client, '"start?"', isString('start?'), F, parentWho)
      local attached = self.shm ~= nil
      if myServer then
         visit(myServer, nil, function(c) send(c, 'start?', F, 'child node ' .. c:tag()) end)
         visit(myServer, nil, function(c)
            local v = expect(c, '"start"', isStart, F, 'child node ' .. c:tag())
            attached = attached and v.shm == true
         end)
      end
      send(client, { q = 'start', shm = attached }, F, parentWho)
      if self.shm then
         -- The root tells through the segment whether every node attached.
         local okw, ready = pcall(self.shm.await, self.shm)
         if not okw then fail(F, 'waiting for the root to start the shared-memory path: ' .. tostring(ready)) end
         if not ready then
            self.shm:close()
            self.shm = nil
         end
      end
   end)
   if not ok then
      if myServer then pcall(myServer.close, myServer) end
      if self.shm then pcall(self.shm.close, self.shm); self.shm = nil end
      error(err, 0)
   end
   self.server = myServer
   self.parentWho = parentWho
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
         fail(F, string.format('node %d%s setting up the tree: %s', self.nodeIndex, isRoot and ' (root)' or '',
            (tostring(err):gsub('^ipc%.Tree: ', ''))))
      end
   elseif isRoot then
      self.server = nil
   end

   local tree = { nodeIndex = self.nodeIndex, numNodes = numNodes, walkTable = Tree.walkTable,
      sharedMemory = self.shm ~= nil }
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

   -- Through the shared-memory segment: the number of nodes done, or nil when this call goes
   -- over the sockets (on every node: they agree in the call).
   local shmLeaves, shmCopies = {}, {}
   local function shmFailed(err)
      fail('Tree.allReduce', string.format('%s, in the shared-memory allreduce: %s', me,
         (tostring(err):gsub('^ipc%.shmtree:allreduce: ', ''))))
   end
   local function shmStep(parents, keys, reduce, numDone)
      local g, n = self.shm, #keys
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
         shmFailed(summed)
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
      if self.shm and not sockets then
         local done = shmStep(parents, keys, reduce, numDone)
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
      if wrapped and self.shm and reduce == defaultReduce
         and (type(value) == 'number' or (SHM_TYPES[torch.type(value)] and value:isContiguous())) then
         -- One number or tensor, the default sum: straight to the segment, no walk, no garbage.
         local leaves = shmLeaves
         leaves[1], leaves[2] = 0, value
         local ok, summed = pcall(self.shm.allreduce, self.shm, leaves)
         local total, sum = leaves[1], leaves[2]
         leaves[1], leaves[2] = nil, nil
         if not ok then shmFailed(summed) end
         lastBox[1] = value
         last, lastWrapped = lastBox, true
         if summed then return sum, numNodes - total end
         -- Every node's call goes over the sockets now (it has agreed on that already).
         sockets = true
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
      if self.shm then pcall(self.shm.close, self.shm); self.shm = nil end
      tree.sharedMemory = false
      if self.server then pcall(self.server.close, self.server); self.server = nil end
      if self.client then pcall(self.client.close, self.client); self.client = nil end
   end

   return tree
end

return setmetatable(Tree, {
   __call = function(_, ...) return construct(...) end,
})
