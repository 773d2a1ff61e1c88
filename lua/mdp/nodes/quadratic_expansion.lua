-- mdp.nodes.QuadraticExpansionNode: [x1..xn, x1x1, x1x2, .., x1xn, x2x2, .., xnxn] (the upper
-- triangle of the products, row-major): n + n(n+1)/2 outputs. Not trainable, not invertible.
local mdp = require 'mdp'
local utils = mdp.utils
local nodes = require 'mdp.nodes'

local QuadraticExpansionNode = torch.class('mdp.nodes.QuadraticExpansionNode', 'mdp.Node', nodes)

QuadraticExpansionNode._init_args = { 'input_dim', 'dtype' }

function QuadraticExpansionNode:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   self:_node_init(o.input_dim, nil, o.dtype)
end

function QuadraticExpansionNode:is_trainable() return false end
function QuadraticExpansionNode:is_invertible() return false end

function QuadraticExpansionNode:expanded_dim(n)
   return utils.expanded_dim(n)
end

function QuadraticExpansionNode:_set_input_dim(n)
   self.input_dim = n
   self.output_dim = utils.expanded_dim(n)
end

function QuadraticExpansionNode:_execute(x)
   return utils.quadratic_expand(x)
end

return QuadraticExpansionNode
