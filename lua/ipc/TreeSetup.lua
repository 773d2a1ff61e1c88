-- ipc.TreeSetup: the shapes of an ipc.Tree (lua/ipc/Tree.lua) and its set-up: the handshake
-- over the root's server that numbers the nodes, links each to its parent, and offers the
-- shared-memory segment (ipc.shmtree) and the socket allreduce's links (ipc.treenet). Also the
-- message helpers the tree's socket path shares.
local ipc = require 'libipc'

local S = {}

local function fail(fname, msg)
   error('ipc.' .. fname .. ': ' .. msg, 0)
end

local function isInteger(x)
   return type(x) == 'number' and x == math.floor(x) and x > -2 ^ 53 and x < 2 ^ 53
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
S.depthFor = depthFor

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
S.allPairs = allPairs

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
S.makeTree = makeTree

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

-- The socket allreduce's listener (ipc.treenet), unless LUATORCH_TREE_NET=0: its port goes to
-- the root with the node's address.
local function listenNet(self, host)
   if self.numNodes < 2 or require('libsettings').off('LUATORCH_TREE_NET') or type(ipc.treenet) ~= 'function' then
      return nil
   end
   local ok, net, port = pcall(ipc.treenet, host)
   if not ok then return nil end
   self.net = net
   return port
end

-- Links this node's socket allreduce to its ring neighbours, parent and children.
local function connectNet(self, tree, F)
   local k = self.nodeIndex
   local children = {}
   for j = 2, self.numNodes do
      if tree[j].parent == k then children[#children + 1] = j end
   end
   local ok, err = pcall(self.net.connect, self.net, k, self.numNodes, tree.net, tree[k].parent, children,
      tonumber(ipc.connecttimeout) or 30)
   if not ok then fail(F, 'linking the socket allreduce: ' .. tostring(err)) end
end

-- The shared-memory path, when every node has it, makes the socket allreduce useless.
local function dropNet(self)
   if self.net and self.shm then
      pcall(self.net.close, self.net)
      self.net = nil
   end
end

local function setupRoot(self, host, port, buildTree)
   local F = 'Tree'
   local server, n = self.server, self.numNodes
   local netPort = listenNet(self, host)
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
   local addresses = { [1] = { host = host, port = port, netPort = netPort } }
   for id, a in ipairs(infos) do
      addresses[indexOf[id]] = { host = a.host, port = a.port, netPort = isInteger(a.netPort) and a.netPort or nil }
   end
   visit(server, nil, function(c)
      c:tag(tostring(indexOf[c:id()]))
      send(c, { q = 'clientIndex', clientIndex = indexOf[c:id()] }, F, 'node ' .. indexOf[c:id()])
   end)
   -- 3. The tree, to everyone, with the shared-memory segment every node tries to attach.
   local tree = makeTree(buildTree, self.base, n, addresses)
   if not require('libsettings').off('LUATORCH_TREE_SHM') and type(ipc.shmtree) == 'function' then
      local okS, g, name, nonce = pcall(ipc.shmtree, n)
      if okS then
         self.shm = g
         tree.shm = { name = name, nonce = nonce }
      end
   end
   if self.net then
      -- Every node listens for the socket allreduce, or none uses it.
      local net = {}
      for k = 1, n do
         if not addresses[k].netPort then net = nil; break end
         net[k] = { host = addresses[k].host, port = addresses[k].netPort }
      end
      tree.net = net
   end
   local okb, errb = pcall(server.broadcast, server, tree)
   if not okb then fail(F, 'sending the tree: ' .. tostring(errb)) end
   if tree.net then
      connectNet(self, tree, F)
   elseif self.net then
      pcall(self.net.close, self.net)
      self.net = nil
   end
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
   dropNet(self)
end

local function setupNode(self, host, port)
   local F = 'Tree'
   local parentWho = 'the root'
   local myServer, myPort = ipc.server(host, tonumber(port) or 0)
   local client = self.client
   local netPort = listenNet(self, host)
   local ok, err = pcall(function()
      expect(client, 'the address question', isQ('address?'), F, parentWho)
      send(client, { q = 'address', nodeIndex = self.nodeIndex, host = host, port = myPort, netPort = netPort },
         F, parentWho)
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
      if type(tree.net) == 'table' and self.net then
         connectNet(self, tree, F)
      elseif self.net then
         pcall(self.net.close, self.net)
         self.net = nil
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
      dropNet(self)
   end)
   if not ok then
      if myServer then pcall(myServer.close, myServer) end
      if self.shm then pcall(self.shm.close, self.shm); self.shm = nil end
      if self.net then pcall(self.net.close, self.net); self.net = nil end
      error(err, 0)
   end
   self.server = myServer
   self.parentWho = parentWho
end

S.describe, S.expect, S.send, S.visit = describe, expect, send, visit
S.setupRoot, S.setupNode = setupRoot, setupNode
S.fail, S.isInteger = fail, isInteger
return S
