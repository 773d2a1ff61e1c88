-- gModules saved by another Torch load here and compute what it computed: outputs, gradients
-- with respect to the inputs and to the parameters, in a model saved after a pass and in one
-- saved before any. By default the files recorded by the original Torch7 under
-- tests/fixtures (see make_fixtures.lua); or every *.t7 file of the folder given:
--   th test_fixtures.lua [DIR]
-- (the original Torch7 runs it too, on files luatorch recorded).

require 'nngraph'

local fixtures = arg and arg[1] or paths.concat(paths.dirname(paths.thisfile()), 'fixtures')

-- char-rnn's one-hot module, which the LSTM fixture holds (this behaves as char-rnn's does)
if not torch.factory('OneHot') then
   local OneHot, parent = torch.class('OneHot', 'nn.Module')
   function OneHot:__init(n)
      parent.__init(self)
      self.outputSize = n
      self._eye = torch.eye(n)
   end
   function OneHot:updateOutput(input)
      if self._eye == nil then self._eye = torch.eye(self.outputSize) end
      self._eye = self._eye:float()
      self.output:resize(input:size(1), self.outputSize):copy(self._eye:index(1, input:long()))
      return self.output
   end
end

local checks = 0

-- Largest absolute difference between two nested values of the same structure.
local function maxDiff(a, b, where)
   if torch.isTensor(a) then
      assert(torch.isTensor(b), where .. ': tensor expected')
      assert(a:nElement() == b:nElement(), where .. ': sizes differ')
      if a:nElement() == 0 then return 0 end
      return (a:double() - b:double()):abs():max()
   end
   assert(type(a) == 'table' and type(b) == 'table', where .. ': table expected')
   assert(#a == #b, where .. ': lengths differ ' .. #a .. ' vs ' .. #b)
   local m = 0
   for i = 1, #a do
      m = math.max(m, maxDiff(a[i], b[i], where .. '[' .. i .. ']'))
   end
   return m
end

local function close(a, b, what, tol)
   local d = maxDiff(a, b, what)
   assert(d <= (tol or 1e-10), string.format('%s differs from Torch7 by %g', what, d))
   checks = checks + 1
end

local function checkLayout(g, name)
   assert(torch.type(g) == 'nn.gModule', name .. ': not a gModule')
   for _, field in ipairs { 'fg', 'bg', 'innode', 'outnode', 'forwardnodes', 'backwardnodes',
      'modules', 'nInputs' } do
      assert(g[field] ~= nil, name .. ': field ' .. field .. ' missing')
   end
   assert(torch.type(g.fg) == 'graph.Graph' and torch.type(g.innode) == 'nngraph.Node')
   assert(#g.forwardnodes == #g.fg.nodes and #g.backwardnodes == #g.bg.nodes)
   -- the nodes are indexed both ways, as graph.Graph keeps them
   for i, node in ipairs(g.fg.nodes) do
      assert(g.fg.nodes[node] == i and node.id == i, name .. ': fg node index')
   end
   -- topsort over the loaded graph gives the saved order
   local again = g.fg:topsort()
   for i, node in ipairs(again) do
      assert(node == g.forwardnodes[i], name .. ': topsort order differs from the saved one')
   end
   checks = checks + 1
end

local function run(g, f, name)
   g:training()
   local params, gradParams = g:getParameters()
   close(params, f.params, name .. ' parameters', 0)
   g:zeroGradParameters()
   close(g:forward(f.input), f.output, name .. ' output')
   close(g:backward(f.input, f.gradOutput), f.gradInput, name .. ' gradInput')
   close(gradParams, f.gradParams, name .. ' gradParameters')
   -- a second pass gives the same again (state from the first is reset)
   g:zeroGradParameters()
   close(g:forward(f.input), f.output, name .. ' output (2nd pass)')
   close(g:backward(f.input, f.gradOutput), f.gradInput, name .. ' gradInput (2nd pass)')
   close(gradParams, f.gradParams, name .. ' gradParameters (2nd pass)')
end

-- Converts a nested value of tensors to float.
local function floats(x)
   if torch.isTensor(x) then return x:float() end
   local t = {}
   for k, v in pairs(x) do t[k] = floats(v) end
   return t
end

local names = {}
for file in paths.iterfiles(fixtures) do
   if file:match('%.t7$') then names[#names + 1] = file end
end
table.sort(names)
assert(#names > 0, 'no .t7 files in ' .. fixtures)
for _, file in ipairs(names) do
   local name = file:gsub('%.t7$', '')
   local mode = name:match('_ascii$') and 'ascii' or nil
   local f = torch.load(paths.concat(fixtures, file), mode)
   checkLayout(f.model, name)
   checkLayout(f.fresh, name .. ' (fresh)')
   run(f.model, f, name)
   run(f.fresh, f, name .. ' (fresh)')
   -- a clone, cleared, computes the same
   local c = f.model:clone():clearState()
   local ok, out = pcall(c.forward, c, f.input)
   if ok then
      close(out, f.output, name .. ' output (clone after clearState)')
   elseif #c:findModules('nn.ModuleFromCriterion') > 0 then
      -- Torch7's own ModuleFromCriterion cannot run after clearState (its output emptied)
      print(name .. ': skipped the pass after clearState (' .. tostring(out):sub(1, 60) .. ')')
   else
      error(out, 0)
   end
   -- in float, within float rounding
   local fl = f.model:clone():float()
   close(fl:forward(floats(f.input)), f.output, name .. ' output (float)', 1e-5)
end

print(string.format('%d checks on %d files (%s)', checks, #names, table.concat(names, ' ')))
print('ok')
