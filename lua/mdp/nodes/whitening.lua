-- mdp.nodes.WhiteningNode: a PCANode (same arguments) whose outputs have unit variance: after
-- the PCA, each component v[:, i] is divided by sqrt(d[i]).
local mdp = require 'mdp'
local nodes = require 'mdp.nodes'

local WhiteningNode = torch.class('mdp.nodes.WhiteningNode', 'mdp.nodes.PCANode', nodes)

function WhiteningNode:_stop_training()
   nodes.PCANode._stop_training(self)
   local k = self.d:size(1)
   self.v = torch.cdiv(self.v, torch.sqrt(self.d):view(1, k):expandAs(self.v))
   self._avg_v = nil
end

-- The eigenvectors of the covariance matrix (the PCA's v).
function WhiteningNode:get_eigenvectors()
   self:_if_training_stop_training('get_eigenvectors')
   local k = self.d:size(1)
   return torch.cmul(self.v, torch.sqrt(self.d):view(1, k):expandAs(self.v))
end

-- diag(sqrt(d))·v_pcaᵀ (transposed: its transpose).
function WhiteningNode:get_recmatrix(transposed)
   self:_if_training_stop_training('get_recmatrix')
   local k = self.d:size(1)
   local vinv = torch.cmul(self.v, self.d:view(1, k):expandAs(self.v))
   if transposed == false or transposed == 0 then return vinv end
   return vinv:t()
end

return WhiteningNode
