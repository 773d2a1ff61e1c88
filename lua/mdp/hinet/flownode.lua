-- mdp.hinet.FlowNode(flow [, input_dim, output_dim, dtype]) or FlowNode{flow =, ...}: a flow
-- (or a list of nodes) wrapped as one node. Its dimensions come from the first and last inner
-- nodes; its training phases are the inner nodes' remaining phases at construction, in order
-- (each phase runs the data through the nodes before the one it trains). Do not change the
-- inner flow afterwards.
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise
local hinet = require 'mdp.hinet'

local FlowNode = torch.class('mdp.hinet.FlowNode', 'mdp.Node', hinet)

FlowNode._init_args = { 'flow', 'input_dim', 'output_dim', 'dtype' }

function FlowNode:__init(...)
   local first = ...
   local o
   if select('#', ...) == 1 and utils.is_plain_table(first) and first.flow == nil then
      o = { flow = first }
   else
      o = utils.options(self:_name(), self._init_args, ...)
   end
   local flow = o.flow
   if utils.is_plain_table(flow) then flow = mdp.Flow(flow) end
   if not torch.isTypeOf(flow, 'mdp.Flow') then
      raise('TypeError', 'FlowNode', 'a flow (or a list of nodes) expected, got %s', torch.typename(flow) or type(flow))
   end
   if #flow == 0 then raise('ValueError', 'FlowNode', 'the flow is empty') end
   self._flow = flow
   local n = #flow
   local input_dim = o.input_dim or flow[1].input_dim
   local output_dim = o.output_dim or flow[n].output_dim
   local dtype = o.dtype or flow[n].dtype
   self._pretrained_phase = {}
   local train_len = 0
   for i = 1, n do
      local node = flow[i]
      self._pretrained_phase[i] = node:get_current_train_phase()
      if node:is_trainable() then
         train_len = train_len + #node:_get_train_seq() - self._pretrained_phase[i]
      end
   end
   self._is_trainable = train_len > 0
   self:_node_init(input_dim, output_dim, dtype)
end

function FlowNode:get_flow() return self._flow end

function FlowNode:__len__() return #self._flow end

function FlowNode:get(i) return self._flow:get(i) end

function FlowNode:is_trainable() return self._is_trainable end

function FlowNode:is_invertible()
   for i = 1, #self._flow do
      if not self._flow[i]:is_invertible() then return false end
   end
   return true
end

function FlowNode:_set_input_dim(n)
   self._flow[1]:set_input_dim(n)
   self._flow:_check_nodes(self._flow:nodes())
   self.input_dim = n
end

function FlowNode:_fix_nodes_dimensions()
   local flow = self._flow
   if #flow > 1 then
      local prev = flow[1]
      for i = 2, #flow do
         local node = flow[i]
         if node.input_dim == nil then node:set_input_dim(prev.output_dim) end
         prev = node
      end
      flow:_check_nodes(flow:nodes())
   end
   if flow[#flow].output_dim ~= nil then
      self:set_output_dim(flow[#flow].output_dim)
   end
end

function FlowNode:_set_output_dim(n)
   local flow = self._flow
   local last = flow[#flow]
   if #flow == 1 then
      last:set_output_dim(n)
   elseif last.output_dim == nil then
      self:_fix_nodes_dimensions()
      if last.output_dim == nil then
         if last.input_dim == nil then
            raise('InconsistentDimException', 'FlowNode.set_output_dim',
               "FlowNode can't set the dimension of the last node, because its input_dim is undefined")
         end
         last:set_output_dim(n)
      end
   end
   if n ~= last.output_dim then
      raise('InconsistentDimException', 'FlowNode.set_output_dim',
         "FlowNode can't be set to output_dim %d because the last internal node already has output_dim %d",
         n, last.output_dim)
   end
   self.output_dim = n
end

function FlowNode:_set_dtype(t)
   for i = 1, #self._flow do
      local node = self._flow[i]
      if node.dtype ~= t then node:set_dtype(t) end
   end
   self.dtype = t
end

function FlowNode:_get_supported_dtypes()
   local count, n = {}, #self._flow
   for i = 1, n do
      for _, t in ipairs(self._flow[i]:get_supported_dtypes()) do count[t] = (count[t] or 0) + 1 end
   end
   local out = {}
   for _, t in ipairs(mdp.utils.FLOAT_DTYPES) do if count[t] == n then out[#out + 1] = t end end
   for _, t in ipairs(mdp.utils.INTEGER_DTYPES) do if count[t] == n then out[#out + 1] = t end end
   return out
end

-- The phase functions of inner node i, shared by all flow nodes (called with the flow node as
-- first argument, so that no cache holds a flow node).
local train_fns, stop_fns, last_stop_fns = {}, {}, {}

local function phase_fns(i)
   local t = train_fns[i]
   if t == nil then
      t = function(self, x, ...)
         local flow = self._flow
         if i > 1 then x = flow:execute(x, i - 1) end
         flow[i]:train(x, ...)
      end
      train_fns[i] = t
      stop_fns[i] = function(self, ...) self._flow[i]:stop_training(...) end
      last_stop_fns[i] = function(self, ...)
         self._flow[i]:stop_training(...)
         self:_fix_nodes_dimensions()
      end
   end
   return t, stop_fns[i], last_stop_fns[i]
end

-- weak keys, values free of the keys: the sequences are plain lists of shared functions
local seq_cache = setmetatable({}, { __mode = 'k' })

function FlowNode:_get_train_seq()
   local seq = seq_cache[self]
   if seq then return seq end
   seq = {}
   local flow = self._flow
   local last_i
   for i = 1, #flow do
      local node = flow[i]
      if node:is_trainable() then
         local remaining = #node:_get_train_seq() - self._pretrained_phase[i]
         local train, stop = phase_fns(i)
         for _ = 1, remaining do seq[#seq + 1] = { train, stop } end
         if remaining > 0 then last_i = i end
      end
   end
   if #seq > 0 then
      local train, _, last_stop = phase_fns(last_i)
      seq[#seq] = { train, last_stop }
   end
   seq_cache[self] = seq
   return seq
end

function FlowNode:_execute(x)
   return self._flow:execute(x)
end

function FlowNode:_inverse(y)
   return self._flow:inverse(y)
end

return FlowNode
