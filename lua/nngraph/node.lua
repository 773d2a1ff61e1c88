-- nngraph.Node: a graph.Node whose data describes one step of an nn.gModule.
--
-- The data table (shared by the node's copies in the forward and backward graphs) may hold:
--   module         the nn.Module run at this node (none: the node passes its input through)
--   input          the list of inputs gathered in the forward pass
--   gradOutput     the list of gradients gathered in the backward pass (summed before use)
--   gradOutputBuffer  where several gradients are summed
--   mapindex       the input nodes' data in the order they were given (an array, and each
--                  data table as a key mapped to its position)
--   reverseMap     the nodes that take this node as an input (as keys)
--   nSplitOutputs  on the node made by split(n)
--   selectindex    on the n nodes split(n) returns: which element of the table they pass on
--   forwardNodeId  the node's id in the forward graph (for labels)
--   annotations    name, description, graphAttributes, and _debugLabel (where the node
--                  was declared)

local utils = require('nngraph.utils')
local unpack = unpack or table.unpack
local istensor = torch.isTensor
local istable = utils.istable

local Node, parent = torch.class('nngraph.Node', 'graph.Node')

-- debug.getinfo level, seen from __init, of the code that declared the node: Node.__init, the
-- constructor, its __call, Module.__call__, the module's __call, then the caller.
local DECLARATION_LEVEL = 6

function Node:__init(data)
   parent.__init(self, data)
   data.annotations = data.annotations or {}
   data.mapindex = data.mapindex or {}
   data.reverseMap = data.reverseMap or {}
   if not data.annotations._debugLabel then
      -- this call must stay in __init itself: the level counts from here
      self:_makeDebugLabel(debug.getinfo(DECLARATION_LEVEL, 'Sl'))
   end
end

-- _debugLabel '[file]:line_' from a debug.getinfo table (shown as the node's tooltip).
function Node:_makeDebugLabel(dinfo)
   if dinfo then
      self.data.annotations._debugLabel = string.format('[%s]:%d_%s', dinfo.short_src,
         dinfo.currentline, dinfo.name or '')
   end
end

-- Adds child (a node this one reads). With domap, the child is also recorded as the next input
-- (data.mapindex) and this node as one of the child's consumers (its data.reverseMap).
function Node:add(child, domap)
   parent.add(self, child)
   if not domap then return end
   local inputs = self.data.mapindex
   local cdata = child.data
   assert(not inputs[cdata], "Don't pass the same input twice.")
   inputs[#inputs + 1] = cdata
   inputs[cdata] = #inputs
   local consumers = cdata.reverseMap
   assert(not consumers[self], 'this connection has already been made!')
   consumers[self] = true
end

-- noutput nodes, each passing on one element of the table this node outputs, in order.
function Node:split(noutput)
   if noutput == 1 then
      return nngraph.JustElement()(self)
   end
   local label = self.data.annotations._debugLabel
   local where = debug.getinfo(2, 'Sl')
   local at = string.format(' split at [%s]:%d', where.short_src, where.currentline)
   local splitter = nngraph.Node({ nSplitOutputs = noutput,
      annotations = { _debugLabel = label .. at .. '-mnode' } })
   splitter:add(self, true)
   local outs = {}
   for i = 1, noutput do
      local out = nngraph.Node({ selectindex = i, input = {},
         annotations = { _debugLabel = label .. '-' .. i } })
      out:add(splitter, true)
      outs[i] = out
   end
   return unpack(outs)
end

-- Merges the given fields into data.annotations (name, description, graphAttributes, ...).
function Node:annotate(annotations)
   local own = self.data.annotations
   for k, v in pairs(annotations) do
      own[k] = v
   end
   return self
end

function Node:graphNodeName()
   local name = self.data.annotations.name
   if name then
      return name .. ' (' .. self.id .. ')'
   end
   return 'Node' .. self.id
end

-- The Graphviz attributes (annotations.graphAttributes, created if missing), with the
-- declaration site as the default tooltip.
function Node:graphNodeAttributes()
   local ann = self.data.annotations
   ann.graphAttributes = ann.graphAttributes or {}
   if not ann.graphAttributes.tooltip then
      ann.graphAttributes.tooltip = ann._debugLabel
   end
   return ann.graphAttributes
end

-- '', or NaN / inf / -inf when the tensor holds such a value.
local function specialValues(t)
   if t:nElement() == 0 then return '' end
   if t:ne(t):sum() > 0 then return 'NaN' end
   if t:max() == math.huge then return 'inf' end
   if t:min() == -math.huge then return '-inf' end
   return ''
end

-- A short description of a value: Tensor[2x3] (with the type unless it is the default one),
-- {..} for lists, tostring otherwise.
local function describe(v)
   if v == nil then return '' end
   if istensor(v) then
      local kind = 'Tensor'
      if v:type() ~= torch.Tensor():type() then kind = v:type() end
      return kind .. '[' .. table.concat(v:size():totable(), 'x') .. ']' .. specialValues(v)
   end
   if istable(v) then
      local parts = {}
      for i, x in ipairs(v) do
         parts[i] = describe(x)
      end
      return '{' .. table.concat(parts, ',') .. '}'
   end
   return (tostring(v):gsub('\n', '\\l'))
end

-- The node's data as Graphviz label text: 'key = value' lines ('\l' ends a line), mapindex only
-- when there are several inputs (listed by their forward node ids), the description first.
function Node:label()
   local data = self.data
   local keys = {}
   for k in pairs(data) do
      if k ~= 'forwardNodeId' and k ~= 'annotations' then
         keys[#keys + 1] = k
      end
   end
   table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
   local lines = {}
   for _, k in ipairs(keys) do
      local v = data[k]
      if k == 'mapindex' then
         if #v > 1 then
            local ids = {}
            for i, d in ipairs(v) do
               ids[i] = 'Node' .. (d.forwardNodeId or '')
            end
            lines[#lines + 1] = 'mapindex = {' .. table.concat(ids, ',') .. '}'
         end
      else
         lines[#lines + 1] = tostring(k) .. ' = ' .. describe(v)
      end
   end
   local desc = ''
   if data.annotations.description then
      desc = 'desc = ' .. data.annotations.description .. '\\n'
   end
   return desc .. table.concat(lines, '\\l')
end

return Node
