-- The graph package: Graph / Node / Edge, traversals, topological sort, reverse, roots and
-- leaves, cycles, clone and the dot text. Runs with luatorch and with the original Torch7.
--   th test_graph.lua

require 'graph'

local n = 0
local function check(cond, what)
   n = n + 1
   if not cond then error('failed: ' .. what, 2) end
end

local function datas(list)
   local out = {}
   for i, node in ipairs(list) do out[i] = tostring(node.data) end
   return table.concat(out, ' ')
end

-- a diamond with a tail: 1 -> 2, 1 -> 3, 2 -> 4, 3 -> 4, 4 -> 5
local function diamond()
   local nodes = {}
   for i = 1, 5 do nodes[i] = graph.Node(i) end
   local g = graph.Graph()
   g:add(graph.Edge(nodes[1], nodes[2]))
   g:add({ graph.Edge(nodes[1], nodes[3]), graph.Edge(nodes[2], nodes[4]) })
   g:add(graph.Edge(nodes[3], nodes[4]))
   g:add(graph.Edge(nodes[4], nodes[5]))
   return g, nodes
end

-- construction: fields, ids, the both-ways indexes
do
   local g, v = diamond()
   check(torch.type(g) == 'graph.Graph' and torch.type(v[1]) == 'graph.Node', 'class names')
   check(#g.nodes == 5 and #g.edges == 5, 'counts')
   for i = 1, 5 do
      check(g.nodes[i] == v[i] and g.nodes[v[i]] == i and v[i].id == i, 'node index ' .. i)
   end
   for i, e in ipairs(g.edges) do
      check(g.edges[e] == i and torch.type(e) == 'graph.Edge', 'edge index')
   end
   check(#v[1].children == 2 and v[1].children[1] == v[2] and v[1].children[v[3]] == 2,
      'children list and index')
   check(v[1].visited == false and v[1].marked == false, 'flags')
   -- an edge added twice is kept once; the node's child too
   g:add(g.edges[1])
   check(#g.edges == 5 and #v[1].children == 2, 'no duplicates')
   -- a new edge between known nodes
   local e = graph.Edge(v[1], v[5], 0.5)
   g:add(e)
   check(#g.edges == 6 and e.weight == 0.5 and #v[1].children == 3, 'extra edge')
   check(not pcall(g.add, g, 3), 'a number is refused')
   local fresh = graph.Node('x')
   check(fresh.id == 0 and #fresh.children == 0, 'a new node')
end

-- traversals
do
   local g, v = diamond()
   local order = {}
   v[1]:dfs(function(node) order[#order + 1] = node end)
   check(datas(order) == '5 4 2 3 1', 'dfs post-order: ' .. datas(order))
   order = {}
   v[1]:bfs(function(node) order[#order + 1] = node end)
   check(datas(order) == '1 2 3 4 5', 'bfs order: ' .. datas(order))
   for i = 1, 5 do
      check(not v[i].visited and not v[i].marked, 'flags cleared')
   end
   local dirty = v[1]:dfs_dirty(function() end)
   check(#dirty == 5 and v[3].visited, 'dfs_dirty leaves the flags')
   for _, node in ipairs(dirty) do node.visited = false end
   local seen = {}
   v[2]:visit(function(node) seen[#seen + 1] = 'pre' .. node.data end,
      function(node) seen[#seen + 1] = 'post' .. node.data end)
   check(table.concat(seen, ',') == 'pre2,pre4,pre5,post5,post4,post2', 'visit')
   check(v[4]:label() == '4', 'label')
end

-- roots, leaves, topsort, reverse
do
   local g, v = diamond()
   check(datas(g:roots()) == '1' and datas(g:leaves()) == '5', 'roots/leaves')
   local sorted, rg, starts = g:topsort()
   check(datas(sorted) == '1 2 3 4 5', 'topsort: ' .. datas(sorted))
   check(torch.type(rg) == 'graph.Graph' and #starts == 1 and starts[1].data == 5, 'topsort extras')
   local r, map = g:reverse()
   check(#r.nodes == 5 and #r.edges == 5, 'reverse counts')
   check(map[v[1]].data == 1 and map[v[1]] ~= v[1], 'reverse makes new nodes over the data')
   check(datas(r:roots()) == '5' and datas(r:leaves()) == '1', 'reversed roots/leaves')
   check(r.edges[1].from == map[v[2]] and r.edges[1].to == map[v[1]], 'edge turned around')
   -- several roots and leaves: a dummy root joins them, in node order
   local a, b, c, d = graph.Node('a'), graph.Node('b'), graph.Node('c'), graph.Node('d')
   local g2 = graph.Graph()
   g2:add(graph.Edge(a, c))
   g2:add(graph.Edge(b, c))
   g2:add(graph.Edge(c, d))
   g2:add(graph.Edge(b, d))
   check(datas(g2:roots()) == 'a b' and datas(g2:leaves()) == 'd', 'two roots')
   check(datas(g2:topsort()) == 'a b c d', 'topsort: ' .. datas(g2:topsort()))
   local e = graph.Node('e')
   g2:add(graph.Edge(a, e))
   check(datas(g2:leaves()) == 'd e', 'two leaves')
   check(datas(g2:topsort()) == 'a b c d e', 'topsort 2: ' .. datas(g2:topsort()))
end

-- cycles
do
   local g, v = diamond()
   check(g:hasCycle() == false and v[1]:hasCycle() == false, 'no cycle')
   g:add(graph.Edge(v[5], v[2]))
   check(g:hasCycle() == true and v[1]:hasCycle() == true, 'cycle')
   for i = 1, 5 do check(not v[i].visited and not v[i].marked, 'cycle flags cleared') end
   check(not pcall(g.topsort, g), 'topsort refuses a cycle')
   local ring = graph.Graph()
   local p, q = graph.Node(1), graph.Node(2)
   ring:add(graph.Edge(p, q))
   ring:add(graph.Edge(q, p))
   check(ring:hasCycle() == true and #ring:roots() == 0, 'a ring has no root')
end

-- Node:graph and clone
do
   local g, v = diamond()
   local h = v[2]:graph()
   check(#h.nodes == 3 and #h.edges == 2 and v[2].id == 1 and v[5].id == 3, 'graph from a node')
   local g0 = diamond()
   local c = g0:clone()
   check(#c.nodes == 5 and #c.edges == 5 and c.nodes[1] ~= g0.nodes[1], 'clone')
   check(c.nodes[1].data == 1 and datas(c:topsort()) == '1 2 3 4 5', 'clone order')
end

-- dot text
do
   check(graph._dotEscape('red') == 'red' and graph._dotEscape('My label') == '"My label"',
      'escape words')
   check(graph._dotEscape('a\nb"c"') == '"a\\nb\\"c\\""', 'escape newline and quotes')
   local a, b = graph.Node('A'), graph.Node(7)
   local g = graph.Graph()
   g:add(graph.Edge(a, b))
   local want = 'digraph G {\nlabelloc="t";\nlabel="T";\nnode [shape = oval]; ' ..
      '\nn1[label="Node1\\nA"];\nn2[label="Node2\\n7"];\nn1 -> n2;\n}'
   check(g:todot('T') == want, 'todot: ' .. g:todot('T'))
   check(g:todot():find('^digraph G {\nnode %[shape = oval%]; \nn1') ~= nil, 'todot untitled')
   -- a node class with its own name and attributes
   graphtest = {}
   local Named = torch.class('graphtest.Named', 'graph.Node')
   function Named:graphNodeName() return 'N' .. self.data end
   function Named:graphNodeAttributes() return { color = 'red', tooltip = 'a b' } end
   local g2 = graph.Graph()
   g2:add(graph.Edge(graphtest.Named('x'), graphtest.Named('y')))
   check(g2:todot():find('\nn1%[label="Nx\\nx" color=red tooltip="a b"%];') ~= nil,
      'todot attributes: ' .. g2:todot())
end

print(n .. ' checks')
print('ok')
