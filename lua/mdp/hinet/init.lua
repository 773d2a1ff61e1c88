-- mdp.hinet: containers that are nodes themselves: FlowNode (a flow as one node), Layer (nodes
-- side by side on column slices), CloneLayer (one node repeated over the slices).
local hinet = {}
package.loaded['mdp.hinet'] = hinet

require 'mdp.hinet.flownode'
require 'mdp.hinet.layer'
require 'mdp.hinet.clonelayer'

return hinet
