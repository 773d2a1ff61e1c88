-- mdp.nodes: the nodes, one per file.
local nodes = {}
package.loaded['mdp.nodes'] = nodes

require 'mdp.nodes.identity'
require 'mdp.nodes.pca'
require 'mdp.nodes.whitening'
require 'mdp.nodes.quadratic_expansion'
require 'mdp.nodes.sfa'
require 'mdp.nodes.sfa2'
require 'mdp.nodes.fda'
require 'mdp.nodes.histogram'
require 'mdp.nodes.adaptive_cutoff'

return nodes
