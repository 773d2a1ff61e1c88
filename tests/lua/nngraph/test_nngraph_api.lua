-- nngraph's API: nodes from module calls and `-`, annotations and declaration sites, split,
-- gModule construction errors, passes over nested tables, and the nn.Module methods of a
-- gModule. Runs with luatorch and with the original Torch7.
--   th test_nngraph_api.lua

require 'nngraph'

local n = 0
local function check(cond, what)
   n = n + 1
   if not cond then error('failed: ' .. tostring(what), 2) end
end

local function near(a, b, tol)
   if torch.isTensor(a) then
      return torch.isTensor(b) and a:nElement() == b:nElement() and
         (a:nElement() == 0 or (a - b):abs():max() <= (tol or 1e-12))
   end
   if type(a) ~= 'table' or type(b) ~= 'table' or #a ~= #b then return false end
   for i = 1, #a do
      if not near(a[i], b[i], tol) then return false end
   end
   return true
end

local function errorOf(f, ...)
   local ok, err = pcall(f, ...)
   check(not ok, 'an error was expected')
   return tostring(err)
end

local thisFile = debug.getinfo(1, 'S').short_src

-- nodes from module calls
do
   local lin = nn.Linear(3, 2)
   local x = nn.Identity()()
   local y = lin(x)
   check(torch.type(x) == 'nngraph.Node' and torch.typename(y) == 'nngraph.Node', 'node class')
   check(torch.isTypeOf(y, 'graph.Node'), 'a graph.Node')
   check(y.data.module == lin and #y.children == 1 and y.children[1] == x, 'module and input')
   check(y.data.mapindex[1] == x.data and y.data.mapindex[x.data] == 1, 'mapindex')
   check(x.data.reverseMap[y] == true, 'reverseMap')
   check(type(x.data.annotations) == 'table' and x.data.mapindex[1] == nil, 'fresh data')
   local a, b = nn.Identity()(), nn.Identity()()
   local j = nn.JoinTable(1)({ b, a })
   check(j.data.mapindex[1] == b.data and j.data.mapindex[2] == a.data, 'input order kept')
   -- declaration sites
   local line = debug.getinfo(1, 'l').currentline + 1
   local z = nn.Tanh()(y)
   check(z.data.annotations._debugLabel == string.format('[%s]:%d_', thisFile, line),
      'debug label ' .. tostring(z.data.annotations._debugLabel))
   line = debug.getinfo(1, 'l').currentline + 1
   local function make() local m = nn.Sigmoid()(z); return m end
   check(make().data.annotations._debugLabel == string.format('[%s]:%d_', thisFile, line),
      'debug label inside a function')
end

-- `-` chaining
do
   local x = -nn.Identity()
   check(torch.type(x) == 'nngraph.Node' and #x.children == 0, '-module')
   local y = x - nn.Linear(4, 3) - nn.Tanh()
   check(torch.type(y.data.module) == 'nn.Tanh' and
      torch.type(y.children[1].data.module) == 'nn.Linear' and y.children[1].children[1] == x,
      'node - module - module')
   local g = nn.gModule({ x }, { y })
   local inp = torch.randn(2, 4)
   local lin = y.children[1].data.module
   check(near(g:forward(inp), torch.tanh(lin:forward(inp))), 'chain computes')
   check(errorOf(function() return nn.Linear(2, 2) - nn.Tanh() end)
      :find('is an nn.Module, specifically a nn.Linear', 1, true), 'module - module')
end

-- argument errors
do
   check(errorOf(function() return nn.Tanh()(nil) end):find('inputs[1] is nil', 1, true), 'nil')
   check(errorOf(function() return nn.Tanh()({}) end):find('cannot pass an empty table', 1, true),
      'empty table')
   check(errorOf(function() return nn.Tanh()(nn.Identity()(), nn.Identity()()) end)
      :find('Use {input1, input2}', 1, true), 'two arguments')
   check(errorOf(function() return nn.Tanh()({ nn.Identity()(), 3 }) end)
      :find('inputs[2] should be an nngraph.Node but is of type number', 1, true), 'a number')
   local x = nn.Identity()()
   check(errorOf(function() return nn.CAddTable()({ x, x }) end)
      :find("Don't pass the same input twice", 1, true), 'same input twice')
   local h = nn.Tanh()(x)
   check(errorOf(nn.gModule, { x }, { h, nil, h }):find('outputs[2] is nil', 1, true), 'hole')
   check(errorOf(nn.gModule, { x, nn.Tanh() }, { h }):find('inputs[2] is an nn.Module', 1, true),
      'module as input')
   -- a node made from x that does not reach the outputs
   local x2 = nn.Identity()()
   local used = nn.Tanh()(x2)
   local line = debug.getinfo(1, 'l').currentline + 1
   local dangling = nn.Sigmoid()(x2)
   check(errorOf(nn.gModule, { x2 }, { used }):find(string.format(
      'node declared on [%s]:%d_ does not connect to gmodule output', thisFile, line), 1, true),
      'dangling node')
   -- an input that is not used
   local i1, i2 = nn.Identity()(), nn.Identity()()
   check(not pcall(nn.gModule, { i1, i2 }, { nn.Tanh()(i1) }), 'unused input')
   -- wrong number of inputs at run time
   local p, q = nn.Identity()(), nn.Identity()()
   local g = nn.gModule({ p, q }, { nn.CAddTable()({ p, q }) })
   check(errorOf(g.forward, g, { torch.randn(2) }):find('Got 1 inputs instead of 2', 1, true),
      'input count')
   check(errorOf(g.forward, g, torch.randn(2)):find('expecting table of 2 inputs', 1, true),
      'input table')
end

-- split
do
   local x = nn.Identity()()
   local a, b, c = nn.SplitTable(1)(x):split(3)
   check(a.data.selectindex == 1 and c.data.selectindex == 3, 'selectindex')
   local splitter = a.children[1]
   check(splitter.data.nSplitOutputs == 3 and splitter.data.module == nil, 'split node')
   check(b.data.annotations._debugLabel:find('%-2$') ~= nil and
      splitter.data.annotations._debugLabel:find(' split at %[.-%]:%d+%-mnode$') ~= nil,
      'split labels')
   local g = nn.gModule({ x }, { nn.CAddTable()({ a, c }), b })
   local inp = torch.randn(3, 4)
   local out = g:forward(inp)
   check(near(out[1], inp[1] + inp[3]) and near(out[2], inp[2]), 'split forward')
   local gi = g:backward(inp, { torch.ones(4), torch.ones(4) * 2 })
   local want = torch.ones(3, 4)
   want[2]:fill(2)
   check(near(gi, want), 'split backward')
   local one = nn.Identity()()
   local only = one:split(1)
   check(torch.type(only.data.module) == 'nngraph.JustElement', 'split(1)')
   local y = nn.Identity()()
   local u, v = y:split(2)
   check(errorOf(nn.gModule, { y }, { u }):find('1 of split(2) outputs from the node declared at',
      1, true), 'unused split output')
end

-- nested tables in and out, a node used by several nodes and in several outputs
do
   local x, state = nn.Identity()(), nn.Identity()()
   local h, c = state:split(2)
   local s = nn.CAddTable()({ nn.CMulTable()({ x, h }), c })
   local g = nn.gModule({ x, state }, { s, nngraph.nest({ h, { s } }), nn.Identity()(s) })
   local X, H, C = torch.randn(5), torch.randn(5), torch.randn(5)
   local out = g:forward({ X, { H, C } })
   local S = torch.cmul(X, H) + C
   check(#out == 3 and near(out[1], S) and near(out[2][1], H) and near(out[2][2][1], S) and
      near(out[3], S), 'nested forward')
   local g1, g2, g3, g4 = torch.randn(5), torch.randn(5), torch.randn(5), torch.randn(5)
   local gi = g:backward({ X, { H, C } }, { g1, { g2, { g3 } }, g4 })
   local gs = g1 + g3 + g4
   check(near(gi[1], torch.cmul(gs, H)) and near(gi[2][1], torch.cmul(gs, X) + g2) and
      near(gi[2][2], gs), 'nested backward')
   check(g.nInputs == 2 and #g.outnode.children == 3, 'fields')
   -- one output: no table around it
   local a = nn.Identity()()
   local g1out = nn.gModule({ a }, { nn.Tanh()(a) })
   check(torch.isTensor(g1out:forward(torch.randn(3))), 'single output')
end

-- gModule against the same network built with nn containers
do
   torch.manualSeed(7)
   local x1, x2 = nn.Identity()(), nn.Identity()()
   local l1, l2, l3 = nn.Linear(5, 4), nn.Linear(3, 4), nn.Linear(8, 2)
   local j = nn.JoinTable(2)({ nn.Tanh()(l1(x1)), nn.Sigmoid()(l2(x2)) })
   local g = nn.gModule({ x1, x2 }, { l3(j) })
   local seq = nn.Sequential()
      :add(nn.ParallelTable()
         :add(nn.Sequential():add(l1:clone()):add(nn.Tanh()))
         :add(nn.Sequential():add(l2:clone()):add(nn.Sigmoid())))
      :add(nn.JoinTable(2)):add(l3:clone())
   local input = { torch.randn(6, 5), torch.randn(6, 3) }
   local go = torch.randn(6, 2)
   local gp, ggp = g:getParameters()
   local sp, sgp = seq:getParameters()
   check(gp:nElement() == 4 * 5 + 4 + 4 * 3 + 4 + 2 * 8 + 2 and near(gp, sp), 'parameters')
   check(#g:parameters() == 6 and g:parameters()[1] == l1.weight, 'parameter order')
   g:zeroGradParameters()
   seq:zeroGradParameters()
   check(near(g:forward(input), seq:forward(input)), 'forward as nn')
   check(near(g:backward(input, go), seq:backward(input, go)), 'backward as nn')
   check(near(ggp, sgp), 'gradients as nn')
   g:updateParameters(0.1)
   seq:updateParameters(0.1)
   check(near(gp, sp) and near(g:forward(input), seq:forward(input)), 'updateParameters')
   g:zeroGradParameters()
   check(ggp:abs():max() == 0, 'zeroGradParameters')
   -- the modules list follows the forward order
   local kinds = {}
   for i, m in ipairs(g.modules) do kinds[i] = torch.type(m) end
   check(table.concat(kinds, ' ') ==
      'nn.Identity nn.Linear nn.Tanh nn.Identity nn.Linear nn.Sigmoid nn.JoinTable nn.Linear',
      'modules: ' .. table.concat(kinds, ' '))
   check(#g:listModules() == 9 and #g:findModules('nn.Linear') == 3, 'listModules')
   -- map over a clone
   local c = g:clone()
   local pairs_ = 0
   g:map(c, function(a, b)
      check(torch.type(a) == torch.type(b) and not rawequal(a, b), 'map pairs')
      pairs_ = pairs_ + 1
   end)
   check(pairs_ == 8 and near(c:forward(input), g:forward(input)), 'clone')
   local shared = g:clone('weight', 'bias')
   check(shared.modules[2].weight:storage() == g.modules[2].weight:storage() or
      torch.pointer(shared.modules[2].weight:storage()) ==
      torch.pointer(g.modules[2].weight:storage()), 'clone sharing')
   -- a gModule inside nn containers and inside another gModule
   local outer = nn.Sequential():add(nn.ParallelTable():add(nn.Identity()):add(nn.Identity()))
      :add(g)
   check(near(outer:forward(input), g:forward(input)), 'in a Sequential')
   local y1, y2 = nn.Identity()(), nn.Identity()()
   local gg = nn.gModule({ y1, y2 }, { nn.Tanh()(g({ y1, y2 })) })
   check(near(gg:forward(input), torch.tanh(g:forward(input))), 'in a gModule')
   check(tostring(g) == 'nn.gModule', 'tostring')
   g.name = 'mine'
   check(tostring(g) == 'mine', 'tostring with a name')
end

-- training / evaluate, type conversion, clearState
do
   local x = nn.Identity()()
   local drop = nn.Dropout(0.5)
   local g = nn.gModule({ x }, { drop(nn.Linear(4, 4)(x)) })
   g:evaluate()
   check(drop.train == false and g.train == false, 'evaluate')
   local inp = torch.randn(3, 4)
   check(near(g:forward(inp), g:forward(inp)), 'deterministic in evaluate')
   g:training()
   check(drop.train == true and g.train == true, 'training')
   g:forward(inp)
   g:backward(inp, torch.randn(3, 4))
   g:float()
   check(g:type() == 'torch.FloatTensor' and g._type == 'torch.FloatTensor', 'type()')
   check(torch.type(g.modules[2].weight) == 'torch.FloatTensor', 'module weights converted')
   check(torch.type(g.innode.data.input[1]) == 'torch.FloatTensor', 'node inputs converted')
   check(torch.type(g.output) == 'torch.FloatTensor', 'output converted')
   local out = g:forward(inp:float())
   check(torch.type(out) == 'torch.FloatTensor', 'runs in float')
   g:double()
   check(torch.type(g.modules[2].weight) == 'torch.DoubleTensor', 'back to double')
   check(type(g.cuda) == 'function', 'cuda method')
   g:clearState()
   for _, node in ipairs(g.forwardnodes) do
      check(node.data.input == nil, 'clearState empties the node inputs')
   end
   for _, node in ipairs(g.backwardnodes) do
      check(node.data.gradOutput == nil, 'clearState empties the node gradients')
   end
   check(torch.isTensor(g:forward(inp)), 'runs after clearState')
end

-- replace
do
   local x = nn.Identity()()
   local g = nn.gModule({ x }, { nn.Linear(3, 3)(nn.Sigmoid()(x)) })
   g:replace(function(m)
      if torch.type(m) == 'nn.Sigmoid' then return nn.Tanh() end
      return m
   end)
   check(torch.type(g.modules[2]) == 'nn.Tanh' and
      torch.type(g.forwardnodes[3].data.module) == 'nn.Tanh', 'replace')
end

-- annotations and labels
do
   local x = nn.Identity()():annotate { name = 'in', description = 'the input',
      graphAttributes = { color = 'red' } }
   local y = nn.Linear(2, 2)(x)
   local g = nn.gModule({ x }, { y })
   check(x.data.annotations.name == 'in' and x:graphNodeName() == 'in (' .. x.id .. ')',
      'named node')
   check(y:graphNodeName() == 'Node' .. y.id, 'unnamed node')
   check(x:label():find('^desc = the input\\n') ~= nil, 'description first in the label')
   check(y:label():find('module = nn.Linear(2 -> 2)', 1, true) ~= nil, 'module in the label')
   local attrs = y:graphNodeAttributes()
   check(attrs.tooltip == y.data.annotations._debugLabel, 'default tooltip')
   check(x:graphNodeAttributes().color == 'red', 'graph attributes')
   g:forward(torch.randn(2))
   check(y:label():find('input = {Tensor[2]}', 1, true) ~= nil, 'tensor in the label')
   check(g.innode.data.forwardNodeId == g.innode.id, 'forwardNodeId')
   local dot = g.fg:todot('title')
   check(dot:find('label="in %(%d+%)\\ndesc = the input') ~= nil and dot:find('color=red') ~= nil,
      'dot text')
   -- NaN and inf are flagged
   local t = torch.Tensor { 1, 0 / 0 }
   local node = nngraph.Node({ input = { t }, annotations = { _debugLabel = 'x' } })
   check(node:label():find('Tensor[2]NaN', 1, true) ~= nil, 'NaN flag')
   node.data.input = { torch.Tensor { 1, math.huge }:float() }
   check(node:label():find('torch.FloatTensor[2]inf', 1, true) ~= nil, 'inf flag, type')
end

-- criterion nodes
do
   local p, t = nn.Identity()(), nn.Identity()()
   local loss = nn.MSECriterion()({ p, t })
   check(torch.type(loss.data.module) == 'nn.ModuleFromCriterion', 'criterion node')
   local g = nn.gModule({ p, t }, { loss })
   local P, T = torch.randn(4), torch.randn(4)
   local crit = nn.MSECriterion()
   check(math.abs(g:forward({ P, T })[1] - crit:forward(P, T)) < 1e-12, 'loss')
   local gi = g:backward({ P, T }, torch.Tensor { 2 })
   check(near(gi[1], crit:backward(P, T) * 2) and gi[2]:abs():max() == 0, 'loss gradient')
end

print(n .. ' checks')
print('ok')
