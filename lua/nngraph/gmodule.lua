-- nn.gModule: a module made of a directed acyclic graph of modules.
--
-- nn.gModule(inputs, outputs) takes the nngraph.Nodes the inputs enter at and the nodes whose
-- outputs are returned. Fields (a saved file carries them, keep their names and meanings):
--   innode, outnode   extra nodes in front of the inputs (split into them when there are several)
--                     and behind the outputs (innode is its forward-graph copy)
--   bg                the backward graph: outnode and every node it reaches through children
--                     (a node's children are its inputs); the user's own nodes
--   fg                bg reversed (children are consumers), new nodes over the same data
--   forwardnodes      fg in topological order: the order of the forward pass
--   backwardnodes     bg in topological order: the order of the backward passes
--   modules           the nodes' modules in forwardnodes order (nn.Container's list)
--   nInputs, verbose
-- The per-pass values (inputs, gradients) live in the nodes' data (see nngraph.node).

local nesting = require('nngraph.nesting')
local utils = require('nngraph.utils')
local istable = utils.istable

local gModule, parent = torch.class('nn.gModule', 'nn.Container')

-- The gradient with respect to a node's output: the sum of what its consumers sent back. When
-- all but one of several are zero tensors on a one-element storage (an expanded zero), that one
-- is used as it is, as long as the node has never needed a summing buffer.
local function totalGradOutput(node)
   local data = node.data
   local grads = data.gradOutput
   assert(istable(grads), 'expecting gradients to sum')
   if #grads <= 1 then
      return grads[1]
   end
   if not data.gradOutputBuffer then
      local nonZero, last = 0, 1
      for i, g in ipairs(grads) do
         local s = torch.isTensor(g) and g:storage()
         local zero = s and s:size() == 1 and s[1] == 0
         if not zero then
            nonZero, last = nonZero + 1, i
         end
      end
      if nonZero < 2 then
         return grads[last]
      end
      data.gradOutputBuffer = nesting.cloneNested(grads[1])
   end
   local sum = data.gradOutputBuffer
   nesting.resizeNestedAs(sum, grads[1])
   nesting.copyNested(sum, grads[1])
   for i = 2, #grads do
      nesting.addNestedTo(sum, grads[i])
   end
   return sum
end

-- The input a node's module is called with: its single input, or the list of them.
local function moduleInput(data)
   local input = data.input
   if input == nil and data.module ~= nil then
      -- a node without inputs (a parameter node)
      input = {}
   end
   if #input == 1 then
      input = input[1]
   end
   return input
end

local function checkNode(node, what, i)
   if torch.typename(node) ~= 'nngraph.Node' then
      error(utils.expectingNodeErrorMessage(node, what, i), 3)
   end
end

function gModule:__init(inputs, outputs)
   parent.__init(self)
   local outnode = nngraph.Node({ input = {} })
   for i = 1, utils.tableMaxN(outputs) do
      checkNode(outputs[i], 'outputs', i)
      outnode:add(outputs[i], true)
   end
   for i = 1, utils.tableMaxN(inputs) do
      checkNode(inputs[i], 'inputs', i)
   end
   local innode = nngraph.Node({ input = {} })
   assert(#inputs > 0, 'no inputs are not supported')
   if #inputs == 1 then
      inputs[1]:add(innode, true)
   else
      local parts = { innode:split(#inputs) }
      for i = 1, #inputs do
         assert(#inputs[i].children == 0, 'an input should have no inputs')
      end
      for i = 1, #inputs do
         inputs[i]:add(parts[i], true)
      end
   end

   self.bg = outnode:graph()
   self.fg = self.bg:reverse()

   -- The forward graph starts at innode; other starts may only be parameter nodes.
   local roots = self.fg:roots()
   if #roots > 1 then
      local start
      for _, root in ipairs(roots) do
         if root.data == innode.data then
            assert(start == nil, 'more than one matching input node found in leaves')
            start = root
         else
            assert(root.data.module, 'Expected nnop.Parameters node, module not found in node')
            assert(torch.typename(root.data.module) == 'nnop.Parameters',
               'Expected nnop.Parameters node, found : ' .. torch.typename(root.data.module))
         end
      end
      assert(start ~= nil, 'input node not found among roots')
      self.innode = start
   else
      assert(#roots == 1, 'expecting only one start')
      self.innode = roots[1]
   end
   assert(self.innode.data == innode.data, 'expecting the forward innode')
   self.outnode = outnode
   self.verbose = false
   self.nInputs = #inputs

   self.forwardnodes = self.fg:topsort()
   self.backwardnodes = self.bg:topsort()

   local position = {}
   for i, node in ipairs(self.forwardnodes) do
      position[node.data] = i
   end
   for i, node in ipairs(self.forwardnodes) do
      local data = node.data
      -- every output of a split must be used
      if data.nSplitOutputs and data.nSplitOutputs ~= #node.children then
         error(string.format('%s of split(%s) outputs from the node declared at %s are unused',
            data.nSplitOutputs - #node.children, data.nSplitOutputs,
            data.annotations._debugLabel))
      end
      -- every node made from this one must lead to the outputs (it comes later in the order)
      for consumer in pairs(data.reverseMap) do
         local at = position[consumer.data]
         assert(at ~= nil and at > i, string.format(
            'node declared on %s does not connect to gmodule output',
            consumer.data.annotations._debugLabel))
      end
      data.forwardNodeId = node.id
      if data.module then
         self:add(data.module)
      end
   end

   self.output = nil
   self.gradInput = nil
   if #self.outnode.children > 1 then
      self.output = self.outnode.data.input
   end
end

-- Replaces modules by callback(module), in this gModule's nodes and its modules list.
function gModule:replace(callback)
   local out = callback(self)
   local slot = {}
   for i, m in ipairs(self.modules) do
      slot[m] = i
   end
   for _, node in ipairs(self.forwardnodes) do
      local m = node.data.module
      if m then
         local new = m:replace(callback)
         node.data.module = new
         self.modules[slot[m]] = new
      end
   end
   return out
end

-- func(myModule, itsModule) for the modules of two gModules of the same structure.
function gModule:map(gm, func)
   for i, node in ipairs(self.forwardnodes) do
      local other = gm.forwardnodes[i]
      assert(other, 'trying to map another gModule with a different structure')
      if node.data.module then
         assert(other.data.module, 'trying to map another gModule with a different structure')
         func(node.data.module, other.data.module)
      end
   end
end

-- A tensor, or a list of them (recursively), converted to typename; anything else as it is.
local function convert(value, typename, cache)
   if torch.type(value) == 'table' then
      for i = 1, #value do
         value[i] = convert(value[i], typename, cache)
      end
      return value
   end
   if torch.isTensor(value) then
      if nn.utils and nn.utils.recursiveType then
         return nn.utils.recursiveType(value, typename, cache)
      end
      return value:type(typename)
   end
   return value
end

local function convertFields(t, typename, cache)
   for k, v in pairs(t) do
      t[k] = convert(v, typename, cache)
   end
end

function gModule:type(typename, tensorCache)
   if not typename then
      return self._type
   end
   tensorCache = tensorCache or {}
   convertFields(self, typename, tensorCache)
   if self.innode then convertFields(self.innode.data, typename, tensorCache) end
   if self.outnode then convertFields(self.outnode.data, typename, tensorCache) end
   for _, m in ipairs(self.modules) do
      m:type(typename, tensorCache)
   end
   -- Each pass's nodes keep one buffer of their own (`field`), and their children's data.
   local function convertNodes(nodes, field)
      for _, node in ipairs(nodes) do
         if node.data[field] ~= nil then
            node.data[field] = convert(node.data[field], typename, tensorCache)
         end
         for _, child in ipairs(node.children) do
            convertFields(child.data, typename, tensorCache)
         end
      end
   end
   convertNodes(self.backwardnodes, 'gradOutputBuffer')
   convertNodes(self.forwardnodes, 'input')
   self._type = typename
   return self
end

-- Empties each node's list `field` in place (the lists of the last pass; other references to
-- them see the change, as the original's in-place clearing gave).
local function emptyLists(nodes, field)
   for _, node in ipairs(nodes) do
      local list = node.data[field]
      if list then
         for i = #list, 1, -1 do list[i] = nil end
      end
   end
end

function gModule:updateOutput(input)
   return self:runForwardFunction('updateOutput', input)
end

function gModule:clearState()
   local ret = parent.clearState(self)
   for _, node in ipairs(self.backwardnodes) do
      node.data.gradOutput = nil
      node.data.gradOutputBuffer = nil
   end
   for _, node in ipairs(self.forwardnodes) do
      node.data.input = nil
   end
   return ret
end

-- The node each gModule is evaluating (weak keys), for nngraph.setDebug's reports.
local current = setmetatable({}, { __mode = 'k' })
gModule._evaluating = current

-- Runs func(module, input) (a method name: module[func](module, input)) at every node in
-- forward order, feeding each node's output to its consumers.
function gModule:runForwardFunction(func, input)
   if type(func) == 'string' then
      local name = func
      func = function(module, x) return module[name](module, x) end
   end
   -- files from old versions may lack nInputs
   local nInputs = self.nInputs or #self.innode.children
   if nInputs <= 1 then
      input = { input }
   elseif type(input) ~= 'table' then
      error(string.format('expecting table of %s inputs', nInputs))
   end

   local function deliver(node, value)
      for _, child in ipairs(node.children) do
         local cdata = child.data
         cdata.input = cdata.input or {}
         local slot = cdata.mapindex[node.data]
         assert(not cdata.input[slot], 'each input should have one source')
         cdata.input[slot] = value
      end
   end

   local function neteval(node)
      local data = node.data
      if data.selectindex then
         assert(not data.module, 'the selectindex-handling nodes should have no module')
         local got = data.input
         assert(#got == 1, 'only the splitted node should be the input')
         assert(istable(got[1]), 'the input for a split should be a table')
         deliver(node, got[1][data.selectindex])
      else
         local x = moduleInput(data)
         local output
         if data.module then
            output = func(data.module, x)
         else
            output = x
         end
         if data.nSplitOutputs and data.nSplitOutputs ~= #output then
            error(string.format('split(%s) cannot split %s outputs', data.nSplitOutputs,
               #output))
         end
         deliver(node, output)
      end
      if self.verbose then
         print(' V : ' .. node:label())
      end
   end

   if #input ~= nInputs then
      error(string.format('Got %s inputs instead of %s', #input, nInputs))
   end
   -- empty the input lists of the last pass (in place)
   emptyLists(self.forwardnodes, 'input')
   -- the inputs are copied into innode's list, the caller's table is left alone
   local indata = self.innode.data
   indata.input = indata.input or {}
   for i, x in ipairs(input) do
      indata.input[i] = x
   end

   for _, node in ipairs(self.forwardnodes) do
      current[self] = node
      neteval(node)
   end
   current[self] = nil

   self.output = self.outnode.data.input
   if #self.outnode.children == 1 then
      self.output = self.output[1]
   end
   return self.output
end

-- Checks the number of gradOutputs against the number of outputs.
local function checkGradOutput(self, gradOutput)
   local n = #self.outnode.children
   if n > 1 and #gradOutput ~= n then
      error(string.format('Got %s gradOutputs instead of %s', #gradOutput, n))
   end
end

function gModule:updateGradInput(input, gradOutput)
   local function neteval(node)
      local data = node.data
      if data.selectindex then
         assert(not data.module, 'the selectindex-handling nodes should have no module')
         assert(#node.children == 1, 'only the splitted node should be the input')
         local splitter = node.children[1].data
         splitter.gradOutput = splitter.gradOutput or {}
         assert(#splitter.gradOutput <= 1, 'the splitted node should be used only once')
         -- the split node gets one table gradient, filled element by element
         splitter.gradOutput[1] = splitter.gradOutput[1] or {}
         assert(not splitter.gradOutput[1][data.selectindex], 'no gradOutput should be assigned yet')
         splitter.gradOutput[1][data.selectindex] = totalGradOutput(node)
      else
         local go = totalGradOutput(node)
         local gradInput
         if data.module then
            gradInput = data.module:updateGradInput(moduleInput(data), go)
         else
            gradInput = go
         end
         local single = #node.children == 1
         for _, child in ipairs(node.children) do
            local cdata = child.data
            cdata.gradOutput = cdata.gradOutput or {}
            local g = single and gradInput or gradInput[data.mapindex[cdata]]
            table.insert(cdata.gradOutput, g)
         end
      end
      if self.verbose then
         print(' V : ' .. node:label())
      end
   end

   checkGradOutput(self, gradOutput)
   emptyLists(self.backwardnodes, 'gradOutput')
   local outdata = self.outnode.data
   outdata.gradOutput = outdata.gradOutput or {}
   outdata.gradOutput[1] = gradOutput

   for _, node in ipairs(self.backwardnodes) do
      current[self] = node
      neteval(node)
   end
   current[self] = nil

   assert(#self.innode.data.gradOutput == 1, 'expecting the innode to be used only once')
   self.gradInput = self.innode.data.gradOutput[1]
   return self.gradInput
end

function gModule:accGradParameters(input, gradOutput, lr)
   local function neteval(node)
      local data = node.data
      if data.module then
         local grads = data.gradOutput
         local go = grads[1]
         if #grads > 1 then
            -- the sum updateGradInput used (or its single non-zero term)
            go = data.gradOutputBuffer or totalGradOutput(node)
         end
         data.module:accGradParameters(moduleInput(data), go, lr)
      end
      if self.verbose then
         print(' V : ' .. node:label())
      end
   end

   checkGradOutput(self, gradOutput)
   for _, node in ipairs(self.backwardnodes) do
      current[self] = node
      neteval(node)
   end
   current[self] = nil
end

-- Loading: the saved fields; files without a modules list get one from the nodes.
function gModule:read(file)
   local fields = file:readObject()
   for k, v in pairs(fields) do
      self[k] = v
   end
   if not self.modules then
      self.modules = {}
      for _, node in ipairs(self.forwardnodes) do
         if node.data.module then
            table.insert(self.modules, node.data.module)
         end
      end
   end
end

function gModule:__tostring__()
   return self.name or torch.type(self)
end

return gModule
