-- mdp.hinet.CloneLayer(node [, n_nodes = 1 [, dtype]]) or CloneLayer{node =, n_nodes =, dtype =}:
-- a Layer of one node repeated n_nodes times (self.node), trained on every column slice in turn.
-- execute reshapes (N, n·d) row-major to (N·n, d), runs the node once and reshapes back.
local mdp = require 'mdp'
local utils = mdp.utils
local hinet = require 'mdp.hinet'

local CloneLayer = torch.class('mdp.hinet.CloneLayer', 'mdp.hinet.Layer', hinet)

CloneLayer._init_args = { 'node', 'n_nodes', 'dtype' }

function CloneLayer:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   local n = o.n_nodes or 1
   self.node = o.node
   local list = {}
   for i = 1, n do list[i] = o.node end
   self:_layer_init(list, o.dtype)
end

function CloneLayer:_stop_training(...)
   if self.node:is_training() then self.node:stop_training(...) end
   if self.output_dim == nil then self.output_dim = self:_get_output_dim_from_nodes() end
end

function CloneLayer:_execute(x)
   local N, n = x:size(1), #self.nodes
   local xr = x:contiguous():view(N * n, self.node.input_dim)
   local y = self.node:execute(xr)
   return y:contiguous():view(N, self.output_dim)
end

function CloneLayer:_inverse(y)
   local N = y:size(1)
   local yr = y:contiguous():view(N * #self.nodes, self.node.output_dim)
   local x = self.node:inverse(yr)
   return x:contiguous():view(N, self.input_dim)
end

return CloneLayer
