-- require 'mdp': Modular toolkit for Data Processing, after Python's MDP 3.6, for luatorch.
--
--    local mdp = require 'mdp'
--    local flow = mdp.Flow{mdp.nodes.PCANode{input_dim = 100, output_dim = 10},
--                          mdp.nodes.SFA2Node{output_dim = 10}}
--    flow:train({chunks, chunks})        -- one iterable (a list of 2-D tensors) per node
--    local y = flow:execute(x)
--
-- Nodes are torch.class classes (torch.save / torch.load work on trained nodes and flows);
-- arguments are MDP's, given as an options table. Indices of nodes in a flow are 1-based; training
-- phases are counted from 0 as in MDP. `false` (or mdp.None) stands for Python's None in a list of
-- data iterables. Errors are Lua strings "Class.method: ExceptionName: message"; test them with
-- mdp.is_exception(err, 'TrainingException') (which follows MDP's exception hierarchy).
local mdp = {}
package.loaded['mdp'] = mdp

mdp.__version__ = '3.6'

-- Where this package was loaded from when it came from files on disk (nil when embedded): the
-- parallel callables add a searcher for it in scheduler workers, which lack the caller's searchers.
do
   local src = debug.getinfo(1, 'S').source
   local dir = src:match('^@(.*)[/\\]mdp[/\\]init%.lua$')
   -- the embedded copies are named "[luatorch]/mdp/init.lua": no directory to give then
   if dir and dir:sub(1, 1) == '[' then dir = nil end
   mdp._source_root = dir
end

require 'torch'

local errors = require 'mdp.errors'
for k, v in pairs(errors.public) do mdp[k] = v end

mdp.None = false

mdp.utils = require 'mdp.utils'
require 'mdp.extension'
require 'mdp.node'
require 'mdp.flow'
require 'mdp.checkpoint'
mdp.nodes = require 'mdp.nodes'
mdp.hinet = require 'mdp.hinet'
mdp.parallel = require 'mdp.parallel'

-- MDP's top-level shortcuts.
mdp.numx = torch

return mdp
