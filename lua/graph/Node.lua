-- graph.Node: a vertex holding `data`, with an ordered list of successors (`children`).
--
-- Fields (they are what a saved file carries, keep them): data, id (the position in the graph
-- that last added the node, 0 before), children (an array of nodes, and each child also as a key
-- mapped to its position in that array), visited and marked (the flags the traversals set while
-- they run and clear afterwards).

local Node = torch.class('graph.Node')

function Node:__init(data)
   self.data = data
   self.id = 0
   self.children = {}
   self.visited = false
   self.marked = false
end

-- Appends a successor (once: a child already present is not added again). A plain Lua table is
-- taken as a list of children.
-- Nodes are equal when they are the same object (luaT's answer for classes without __eq__;
-- stated here so that == between nodes never depends on the runtime's fallback).
function Node:__eq__(other)
   return rawequal(self, other)
end

function Node:add(child)
   if type(child) == 'table' and not torch.typename(child) then
      for _, c in ipairs(child) do
         self:add(c)
      end
      return
   end
   local kids = self.children
   if kids[child] == nil then
      kids[#kids + 1] = child
      kids[child] = #kids
   end
end

-- Depth-first walk over the nodes not yet flagged visited: before(node) on the way down,
-- after(node) once all its children are done. Flags are the callers' business.
function Node:visit(before, after)
   if self.visited then return end
   if before then before(self) end
   for _, child in ipairs(self.children) do
      child:visit(before, after)
   end
   if after then after(self) end
end

function Node:label()
   return tostring(self.data)
end

-- The graph of every edge reachable from this node (breadth first, so node ids follow that order).
function Node:graph()
   local g = graph.Graph()
   self:bfs(function(node)
      for _, child in ipairs(node.children) do
         g:add(graph.Edge(node, child))
      end
   end)
   return g
end

-- Post-order depth-first traversal calling func(node); the nodes stay flagged visited. Returns
-- the nodes in the order func saw them.
function Node:dfs_dirty(func)
   local seen = {}
   self:visit(function(node) node.visited = true end,
      function(node)
         func(node)
         seen[#seen + 1] = node
      end)
   return seen
end

function Node:dfs(func)
   for _, node in ipairs(self:dfs_dirty(func)) do
      node.visited = false
   end
end

-- Breadth-first traversal calling func(node); the nodes stay flagged marked. Returns the nodes
-- in the order func saw them.
function Node:bfs_dirty(func)
   local order = {}
   local queue, head, tail = { self }, 1, 1
   self.marked = true
   while head <= tail do
      local node = queue[head]
      queue[head] = nil
      head = head + 1
      order[#order + 1] = node
      func(node)
      for _, child in ipairs(node.children) do
         if not child.marked then
            child.marked = true
            tail = tail + 1
            queue[tail] = child
         end
      end
   end
   return order
end

function Node:bfs(func)
   for _, node in ipairs(self:bfs_dirty(func)) do
      node.marked = false
   end
end

-- Whether a cycle is reachable from this node. `marked` flags the nodes on the current path;
-- `visited` the nodes fully explored (both are cleared before returning).
function Node:hasCycle()
   local found = false
   local done = {}
   local function enter(node)
      if found then return end
      if node.marked then
         -- back on the current path: a cycle. Flag it visited so the walk does not go round.
         node.visited = true
         found = true
         return
      end
      node.marked = true
   end
   local function leave(node)
      node.marked = false
      node.visited = true
      done[node] = true
   end
   self:visit(enter, leave)
   for node in pairs(done) do
      node.visited = false
   end
   return found
end

return Node
