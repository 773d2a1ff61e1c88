-- mdp.nodes.IdentityNode: returns its input; not trainable.
local mdp = require 'mdp'
local nodes = require 'mdp.nodes'

local IdentityNode = torch.class('mdp.nodes.IdentityNode', 'mdp.Node', nodes)
mdp.preserve_dim(IdentityNode)

function IdentityNode:is_trainable() return false end

function IdentityNode:_get_supported_dtypes()
   local all = {}
   for _, t in ipairs(mdp.utils.FLOAT_DTYPES) do all[#all + 1] = t end
   for _, t in ipairs(mdp.utils.INTEGER_DTYPES) do all[#all + 1] = t end
   return all
end

return IdentityNode
