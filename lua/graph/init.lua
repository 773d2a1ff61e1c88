-- The graph package: directed graphs (graph.Graph of graph.Node and graph.Edge), their traversals,
-- topological sort, and Graphviz output (graph.dot, graph.graphvizFile, graph.graphvizLayout).

require 'torch'

graph = graph or {}

require 'graph.graphviz'
require 'graph.Node'
require 'graph.Edge'

-- graph.Graph: `nodes` and `edges` are arrays, and each element is also a key mapped to its
-- position there (the fields a saved file carries).
local Graph = torch.class('graph.Graph')

function Graph:__init()
   self.nodes = {}
   self.edges = {}
end

-- Position of `item` in the indexed array `list`, appending it first if it is new.
local function indexOf(list, item)
   local at = list[item]
   if at == nil then
      at = #list + 1
      list[at] = item
      list[item] = at
   end
   return at
end

-- Adds an edge (or a plain table of edges), its two nodes, and the link from -> to; node ids
-- become their positions in this graph.
function Graph:add(edge)
   if type(edge) ~= 'table' then
      error('graph.Edge or {graph.Edges} expected')
   end
   if not torch.typename(edge) then
      for _, e in ipairs(edge) do
         self:add(e)
      end
      return
   end
   indexOf(self.edges, edge)
   local from, to = edge.from, edge.to
   local fromAt = indexOf(self.nodes, from)
   local toAt = indexOf(self.nodes, to)
   from:add(to)
   from.id = fromAt
   to.id = toAt
end

-- A copy with new nodes (and edges) over the same data; numbers and strings are copied, tables
-- shared.
function Graph:clone()
   local copy = graph.Graph()
   local fresh = {}
   for i, node in ipairs(self.nodes) do
      fresh[i] = node.new(node.data)
   end
   for _, e in ipairs(self.edges) do
      copy:add(e.new(fresh[self.nodes[e.from]], fresh[self.nodes[e.to]]))
   end
   return copy
end

-- The graph with every edge turned around, made of new nodes over the same data. Also returns
-- the map from each node of this graph to its counterpart.
function Graph:reverse()
   local rev = graph.Graph()
   local counterpart = {}
   local function twin(node)
      local t = counterpart[node]
      if t == nil then
         t = node.new(node.data)
         counterpart[node] = t
      end
      return t
   end
   for _, e in ipairs(self.edges) do
      local from = twin(e.from)
      local to = twin(e.to)
      rev:add(e.new(to, from))
   end
   return rev, counterpart
end

function Graph:hasCycle()
   local roots = self:roots()
   if #roots == 0 then
      return true
   end
   for _, root in ipairs(roots) do
      if root:hasCycle() then
         return true
      end
   end
   return false
end

-- The nodes of this graph in an order where every node comes after all its predecessors: a
-- post-order depth-first walk of the reversed graph from its roots (this graph's leaves, in
-- node order). Also returns the reversed graph and its roots. Errors on a cycle.
function Graph:topsort()
   local rev, counterpart = self:reverse()
   local original = {}
   for node, twin in pairs(counterpart) do
      original[twin] = node
   end
   local starts = rev:roots()
   if #starts == 0 then
      error('Graph has cycles')
   end
   local start = starts[1]
   if #starts > 1 then
      -- a node of neither graph joins the roots; it maps to nothing, so it is not listed
      start = graph.Node('dummy_root')
      for _, s in ipairs(starts) do
         start:add(s)
      end
   end
   local sorted = {}
   start:dfs(function(node)
      local o = original[node]
      if o ~= nil then
         sorted[#sorted + 1] = o
      end
   end)
   if #sorted ~= #self.nodes then
      error('Graph has cycles')
   end
   return sorted, rev, starts
end

-- The nodes on one side of the edges (`side`) that never occur on the other, in node order.
local function endsOf(g, side, other)
   local candidate = {}
   for _, e in ipairs(g.edges) do
      candidate[e[side]] = true
   end
   for _, e in ipairs(g.edges) do
      candidate[e[other]] = nil
   end
   local found = {}
   for node in pairs(candidate) do
      found[#found + 1] = node
   end
   table.sort(found, function(a, b) return g.nodes[a] < g.nodes[b] end)
   return found
end

-- The nodes without incoming edges.
function Graph:roots()
   return endsOf(self, 'from', 'to')
end

-- The nodes without outgoing edges.
function Graph:leaves()
   return endsOf(self, 'to', 'from')
end

-- A Graphviz ID for str: kept as it is when made of letters only, otherwise quoted, with
-- newlines and double quotes escaped.
function graph._dotEscape(str)
   if not str:find('[^a-zA-Z]') then
      return str
   end
   return '"' .. str:gsub('\n', '\\n'):gsub('"', '\\"') .. '"'
end

-- ' k1=v1 k2=v2' for the attributes table, keys in sorted order, values escaped.
local function attributeList(attributes)
   local keys = {}
   for k in pairs(attributes) do
      keys[#keys + 1] = k
   end
   table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
   local parts = {}
   for i, k in ipairs(keys) do
      parts[i] = tostring(k) .. '=' .. graph._dotEscape(tostring(attributes[k]))
   end
   return ' ' .. table.concat(parts, ' ')
end

-- The graph in Graphviz's dot language. A node names itself through node:graphNodeName() and
-- adds attributes through node:graphNodeAttributes() when it has those methods.
function Graph:todot(title)
   local out = { 'digraph G {\n' }
   if title then
      out[#out + 1] = 'labelloc="t";\nlabel="' .. title .. '";\n'
   end
   out[#out + 1] = 'node [shape = oval]; '
   for _, node in ipairs(self.nodes) do
      local name = node.graphNodeName and node:graphNodeName() or ('Node' .. node.id)
      local attrs = node.graphNodeAttributes and attributeList(node:graphNodeAttributes()) or ''
      out[#out + 1] = string.format('\nn%s[label=%s%s];', node.id,
         graph._dotEscape(name .. '\n' .. node:label()), attrs)
   end
   out[#out + 1] = '\n'
   for _, e in ipairs(self.edges) do
      out[#out + 1] = string.format('n%s -> n%s;\n', e.from.id, e.to.id)
   end
   out[#out + 1] = '}'
   return table.concat(out)
end

return graph
