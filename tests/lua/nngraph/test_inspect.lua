-- Inspection tools: nngraph.annotateNodes, nngraph.setDebug (the failing node drawn in red),
-- graph.dot (with Graphviz's dot when installed, a clear error without), simple_print, verbose.
-- Runs with luatorch and with the original Torch7 (whose graph.dot needs Graphviz too).
--   th test_inspect.lua

require 'nngraph'

local n = 0
local function check(cond, what)
   n = n + 1
   if not cond then error('failed: ' .. tostring(what), 2) end
end

local function readAll(path)
   local f = io.open(path, 'r')
   if not f then return nil end
   local s = f:read('*a')
   f:close()
   return s
end

local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p '" .. dir .. "'")

-- annotateNodes names the caller's local nodes after their variables, keeping explicit names
do
   local function build()
      local input = nn.Identity()()
      local hidden = nn.Tanh()(nn.Linear(3, 3)(input)):annotate { name = 'kept' }
      local output = nn.Sigmoid()(hidden)
      nngraph.annotateNodes()
      return input, hidden, output
   end
   local input, hidden, output = build()
   check(input.data.annotations.name == 'input' and output.data.annotations.name == 'output',
      'annotateNodes')
   check(hidden.data.annotations.name == 'kept', 'an explicit name is kept')
   -- a level further up
   local function inner() nngraph.annotateNodes(2) end
   local mine = nn.Identity()()
   inner()
   check(mine.data.annotations.name == 'mine', 'annotateNodes(2)')
end

-- setDebug: a failing pass saves <name>.dot (and .svg with Graphviz) and re-raises the error
do
   local x = nn.Identity()()
   local bad = nn.Linear(5, 2)(nn.Tanh()(x))
   local g = nn.gModule({ x }, { nn.Sigmoid()(bad) })
   g.name = dir .. '/failing'
   nngraph.setDebug(true)
   local ok, err = pcall(g.forward, g, torch.randn(3))
   check(not ok and tostring(err):find('stack traceback', 1, true), 'error re-raised with a trace')
   local dot = readAll(dir .. '/failing.dot')
   check(dot ~= nil, 'the .dot of the failing graph is written')
   local badId
   for _, node in ipairs(g.fg.nodes) do
      if node.data == bad.data then badId = node.id end
   end
   check(dot:find('n' .. badId .. '[style=filled, fillcolor=red];\n}', 1, true), 'failed node in red')
   check(dot:find('label="' .. dir .. '/failing";', 1, true), 'titled with the name')
   -- a working pass is not disturbed, and the backward passes are covered too
   local y = nn.Identity()()
   local good = nn.gModule({ y }, { nn.Linear(3, 2)(y) })
   good.name = dir .. '/good'
   check(good:forward(torch.randn(3)):nElement() == 2, 'a working pass')
   check(pcall(good.backward, good, torch.randn(3), torch.randn(2)), 'a working backward')
   check(not pcall(good.backward, good, torch.randn(3), torch.randn(5)), 'a failing backward')
   check(readAll(dir .. '/good.dot') ~= nil, 'its graph saved')
   nngraph.setDebug(false)
   os.remove(dir .. '/good.dot')
   check(not pcall(good.backward, good, torch.randn(3), torch.randn(5)), 'fails without debug')
   check(readAll(dir .. '/good.dot') == nil, 'nothing saved without debug')
end

-- verbose prints every node as it runs
do
   local x = nn.Identity()()
   local g = nn.gModule({ x }, { nn.Tanh()(x) })
   g.verbose = true
   local printed = {}
   local realPrint = print
   print = function(s) printed[#printed + 1] = s end
   g:forward(torch.randn(2))
   print = realPrint
   g.verbose = false
   check(#printed == #g.forwardnodes and printed[1]:find('^ V : ') ~= nil, 'verbose')
end

-- graph.dot and simple_print
do
   local x = nn.Identity()():annotate { name = 'Input', graphAttributes = { color = 'red' } }
   local h = nn.Linear(2, 2)(x)
   local g = nn.gModule({ x }, { nn.Tanh()(h) })
   local prefix = dir .. '/net'
   local hasDot = os.execute('command -v dot >/dev/null 2>&1')
   hasDot = hasDot == 0 or hasDot == true
   local ok, err = pcall(graph.dot, g.fg, 'Net', prefix)
   if hasDot then
      check(ok, 'graph.dot with Graphviz: ' .. tostring(err))
      check(readAll(prefix .. '.svg'):find('<svg') ~= nil, 'svg written')
      check(readAll(prefix .. '.dot'):find('color=red') ~= nil, 'dot written')
   else
      check(not ok and tostring(err):lower():find('graphviz') ~= nil, 'a clear error: ' ..
         tostring(err))
   end
   local simple = nngraph.simple_print.todot(g.fg, 'simple')
   check(simple:find('^digraph G {\nlabelloc="t";\nlabel="simple";\n') ~= nil, 'simple header')
   -- only the Linear and the Tanh remain (Identity and module-less nodes are bridged)
   local nodes, edges = 0, 0
   for _ in simple:gmatch('\nn%d+%[label=') do nodes = nodes + 1 end
   for _ in simple:gmatch('n%d+ %-> n%d+;') do edges = edges + 1 end
   check(nodes == 2 and edges == 1, 'simple_print keeps ' .. nodes .. ' nodes ' .. edges .. ' edges')
end

os.execute("rm -rf '" .. dir .. "'")
print(n .. ' checks')
print('ok')
