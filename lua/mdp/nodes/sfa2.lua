-- mdp.nodes.SFA2Node (SFANode's arguments): SFA on the quadratic expansion of the input
-- (QuadraticExpansionNode: n inputs give n + n(n+1)/2 expanded ones). output_dim defaults to the
-- expanded dimension. Not invertible.
local mdp = require 'mdp'
local utils = mdp.utils
local nodes = require 'mdp.nodes'

local SFA2Node = torch.class('mdp.nodes.SFA2Node', 'mdp.nodes.SFANode', nodes)

function SFA2Node:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   self._expnode = nodes.QuadraticExpansionNode { input_dim = o.input_dim, dtype = o.dtype }
   self:_sfa_init(o)
end

function SFA2Node:is_invertible() return false end

function SFA2Node:_set_input_dim(n)
   if self._expnode then self._expnode:set_input_dim(n) end
   self.input_dim = n
end

function SFA2Node:_set_dtype(t)
   nodes.SFANode._set_dtype(self, t)
   if self._expnode and self._expnode.dtype == nil then self._expnode:set_dtype(t) end
end

function SFA2Node:_train(x, include_last_sample)
   local e, de = utils.quadratic_expand_scratch(x, true)
   self:_sfa_update(e, include_last_sample, de)
end

function SFA2Node:_stop_training()
   self:_solve(self:_name() .. '.stop_training', utils.expanded_dim(self.input_dim))
end

function SFA2Node:_execute(x, n)
   return nodes.SFANode._execute(self, (utils.quadratic_expand_scratch(x)), n)
end

return SFA2Node
