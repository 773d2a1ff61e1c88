-- nngraph.simple_print: dot output of a gModule graph without the nodes that do nothing of
-- their own (no module, or an nn.Identity): each such node is bridged, its inputs linked
-- straight to its consumers. Nodes are renumbered 1..n in order.

local M = {}

local function keeps(node)
   local m = node.data and node.data.module
   return m ~= nil and torch.typename(m) ~= 'nn.Identity'
end

-- The kept nodes ({id=, orig_node=}) and edges ({source=, target=} over their new ids).
local function simplified(g)
   local nodes, edges = {}, {}
   for _, node in ipairs(g.nodes) do
      nodes[#nodes + 1] = { id = node.id, orig_node = node }
      for _, child in ipairs(node.children) do
         edges[#edges + 1] = { source = node.id, target = child.id }
      end
   end
   local i = 1
   while i <= #nodes do
      if keeps(nodes[i].orig_node) then
         i = i + 1
      else
         local id = table.remove(nodes, i).id
         local ins, outs, rest = {}, {}, {}
         for _, e in ipairs(edges) do
            if e.source == id then
               outs[#outs + 1] = e.target
            elseif e.target == id then
               ins[#ins + 1] = e.source
            else
               rest[#rest + 1] = e
            end
         end
         for _, s in ipairs(ins) do
            for _, t in ipairs(outs) do
               rest[#rest + 1] = { source = s, target = t }
            end
         end
         edges = rest
      end
   end
   local renumber = {}
   for k, n in ipairs(nodes) do
      renumber[n.id] = k
      n.id = k
   end
   for _, e in ipairs(edges) do
      e.source, e.target = renumber[e.source], renumber[e.target]
   end
   return nodes, edges
end

function M.todot(g, title)
   local nodes, edges = simplified(g)
   local out = { 'digraph G {\n' }
   if title then
      out[#out + 1] = 'labelloc="t";\nlabel="' .. title .. '";\n'
   end
   out[#out + 1] = 'node [shape = oval]; '
   local names = {}
   for i, n in ipairs(nodes) do
      local orig = n.orig_node
      names[i] = 'n' .. orig.id
      out[#out + 1] = '\n' .. names[i] .. '[label="Node' .. orig.id .. '\\n' .. orig:label() .. '"];'
   end
   out[#out + 1] = '\n'
   for _, e in ipairs(edges) do
      out[#out + 1] = names[e.source] .. ' -> ' .. names[e.target] .. ';\n'
   end
   out[#out + 1] = '}'
   return table.concat(out)
end

-- Writes fname.dot and renders fname.svg with Graphviz's dot (when installed).
function M.dot(g, title, fname)
   local prefix = fname or os.tmpname()
   local f = assert(io.open(prefix .. '.dot', 'w'))
   f:write(M.todot(g, title))
   f:close()
   local dot = graph._dotProgram and graph._dotProgram()
   if not dot then
      error("nngraph.simple_print.dot: Graphviz's `dot` program was not found (install " ..
         'graphviz); the dot text is in ' .. prefix .. '.dot', 2)
   end
   os.execute(string.format("'%s' -Tsvg -o '%s.svg' '%s.dot'", dot, prefix, prefix))
   return prefix .. '.svg'
end

return M
