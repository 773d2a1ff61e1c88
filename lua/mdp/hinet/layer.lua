-- mdp.hinet.Layer{node1, node2, ...} (or Layer(nodes [, dtype]), Layer{nodes =, dtype =}): nodes
-- side by side, each on its own slice of the columns (every node needs its input_dim). The
-- dimensions are the sums over the nodes; there are as many training phases as the node with
-- the most; execute and inverse split the columns and concatenate the results.
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise
local hinet = require 'mdp.hinet'

local Layer = torch.class('mdp.hinet.Layer', 'mdp.Node', hinet)

Layer._init_args = { 'nodes', 'dtype' }

-- The nodes list and dtype from Layer's arguments.
function Layer._parse(name, ...)
   local first = ...
   if select('#', ...) == 1 and utils.is_plain_table(first) and first.nodes == nil and rawlen(first) > 0 then
      return first, first.dtype
   end
   local o = utils.options(name, Layer._init_args, ...)
   return o.nodes, o.dtype
end

function Layer:__init(...)
   local list, dtype = Layer._parse(self:_name(), ...)
   self:_layer_init(list, dtype)
end

function Layer:_layer_init(list, dtype)
   if type(list) ~= 'table' or rawlen(list) == 0 then
      raise('TypeError', self:_name(), 'a non-empty list of nodes expected')
   end
   self.nodes = {}
   for i = 1, rawlen(list) do
      local node = list[i]
      if not torch.isTypeOf(node, 'mdp.Node') then
         raise('TypeError', self:_name(), 'node #%d is not an mdp.Node (%s)', i, torch.typename(node) or type(node))
      end
      self.nodes[i] = node
   end
   dtype = self:_check_props(dtype)
   local input_dim = 0
   self.node_input_dims = {}
   for i, node in ipairs(self.nodes) do
      if node.input_dim == nil then
         raise('InconsistentDimException', self:_name(), 'node #%d (%s) has no input_dim: every node of a layer needs one',
            i, node:_name())
      end
      input_dim = input_dim + node.input_dim
      self.node_input_dims[i] = node.input_dim
   end
   local training = false
   for _, node in ipairs(self.nodes) do
      if node:is_training() then training = true end
   end
   self._is_trainable = training
   self:_node_init(input_dim, self:_get_output_dim_from_nodes(), dtype)
end

-- The sum of the nodes' output_dim, or nil while one of them is unset.
function Layer:_get_output_dim_from_nodes()
   local sum = 0
   for _, node in ipairs(self.nodes) do
      if node.output_dim == nil then return nil end
      sum = sum + node.output_dim
   end
   return sum
end

function Layer:_check_props(dtype)
   dtype = utils.dtype(dtype)
   for i, node in ipairs(self.nodes) do
      if node.dtype ~= nil then
         if dtype == nil then
            dtype = node.dtype
         elseif node.dtype ~= dtype then
            raise('NodeException', self:_name(), 'node #%d has dtype %s, the layer %s', i, node.dtype, dtype)
         end
      end
   end
   return dtype
end

function Layer:__len__() return #self.nodes end
function Layer:get(i) return self.nodes[i] end

function Layer:is_trainable() return self._is_trainable end

function Layer:is_invertible()
   for _, node in ipairs(self.nodes) do
      if not node:is_invertible() then return false end
   end
   return true
end

function Layer:_set_dtype(t)
   for _, node in ipairs(self.nodes) do
      if node.dtype ~= t then node:set_dtype(t) end
   end
   self.dtype = t
end

function Layer:_get_supported_dtypes()
   local count, n = {}, #self.nodes
   for _, node in ipairs(self.nodes) do
      for _, t in ipairs(node:get_supported_dtypes()) do count[t] = (count[t] or 0) + 1 end
   end
   local out = {}
   for _, t in ipairs(utils.FLOAT_DTYPES) do if count[t] == n then out[#out + 1] = t end end
   for _, t in ipairs(utils.INTEGER_DTYPES) do if count[t] == n then out[#out + 1] = t end end
   return out
end

local seqs = {}
local phase = { function(self, ...) return self:_train(...) end,
                function(self, ...) return self:_stop_training(...) end }

function Layer:_get_train_seq()
   local len = 0
   for _, node in ipairs(self.nodes) do
      local l = #node:_get_train_seq()
      if l > len then len = l end
   end
   local seq = seqs[len]
   if seq == nil then
      seq = {}
      for i = 1, len do seq[i] = phase end
      seqs[len] = seq
   end
   return seq
end

function Layer:_train(x, ...)
   local start = 1
   for _, node in ipairs(self.nodes) do
      local d = node.input_dim
      if node:is_training() then node:train(x:narrow(2, start, d), ...) end
      start = start + d
   end
end

function Layer:_stop_training(...)
   for _, node in ipairs(self.nodes) do
      if node:is_training() then node:stop_training(...) end
   end
   if self.output_dim == nil then self.output_dim = self:_get_output_dim_from_nodes() end
end

function Layer:_pre_execution_checks(x)
   if self.output_dim == nil then
      local start = 1
      for _, node in ipairs(self.nodes) do
         node:_pre_execution_checks(x:narrow(2, start, node.input_dim))
         start = start + node.input_dim
      end
      self.output_dim = self:_get_output_dim_from_nodes()
      if self.output_dim == nil then
         raise('NodeException', self:_name() .. '.execute', 'output_dim must be set at this point for all nodes')
      end
   end
   mdp.Node._pre_execution_checks(self, x)
end

function Layer:_execute(x, ...)
   local outs, start = {}, 1
   for i, node in ipairs(self.nodes) do
      outs[i] = node:execute(x:narrow(2, start, node.input_dim), ...)
      start = start + node.input_dim
   end
   if #outs == 1 then return outs[1] end
   return torch.cat(outs, 2)
end

function Layer:_inverse(y, ...)
   local outs, start = {}, 1
   for i, node in ipairs(self.nodes) do
      outs[i] = node:inverse(y:narrow(2, start, node.output_dim), ...)
      start = start + node.output_dim
   end
   if #outs == 1 then return outs[1] end
   return torch.cat(outs, 2)
end

return Layer
