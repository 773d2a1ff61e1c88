-- nngraph: graphs of nn modules.
--
--   local x = nn.Identity()()            -- module(...) makes a node; () a node without inputs
--   local h = nn.Tanh()(nn.Linear(3, 4)(x))
--   local y = h - nn.Sigmoid()           -- `-` chains: node - module, module - module, -module
--   local g = nn.gModule({x}, {y})       -- an nn.Module running the graph

require 'nn'
require 'graph'

nngraph = nngraph or {}

require 'nngraph.nest'
require 'nngraph.node'
require 'nngraph.gmodule'
require 'nngraph.graphinspecting'
require 'nngraph.JustElement'
require 'nngraph.JustTable'
require 'nngraph.ModuleFromCriterion'

local utils = require 'nngraph.utils'

nngraph.simple_print = require 'nngraph.simple_print'

local Module = torch.getmetatable('nn.Module')
local Criterion = torch.getmetatable('nn.Criterion')

-- module(input) / module({input1, input2, ...}) / module(): a new node running this module on
-- the given nodes' outputs, in that order. (It replaces nn's module(input) = forward.)
function Module:__call__(...)
   local nArgs = select('#', ...)
   assert(nArgs <= 1, 'Use {input1, input2} to pass multiple inputs.')
   local input = ...
   if nArgs == 1 and input == nil then
      error(utils.expectingNodeErrorMessage(input, 'inputs', 1))
   end
   -- an empty table is most likely a list of misspelt variables
   if type(input) == 'table' and next(input) == nil then
      error('cannot pass an empty table of inputs. To indicate no incoming ' ..
         'connections, leave the second set of parens blank.')
   end
   if not utils.istable(input) then
      input = { input }
   end
   -- Node's __init reads the declaration site a fixed number of levels up from here: keep this
   -- call directly in __call__ and not a tail call.
   local node = nngraph.Node({ module = self })
   for i = 1, utils.tableMaxN(input) do
      local from = input[i]
      if torch.typename(from) ~= 'nngraph.Node' then
         error(utils.expectingNodeErrorMessage(from, 'inputs', i))
      end
      node:add(from, true)
   end
   return node
end

-- criterion({prediction, target}): a node computing the loss, through nn.ModuleFromCriterion.
function Criterion:__call__(...)
   return nn.ModuleFromCriterion(self)(...)
end

-- -module: module(), a node without inputs.
function Module.__unm__(m)
   return m()
end

-- a - b: b(a), for a module or a node a and a module b.
function Module.__sub__(a, b)
   return b(a)
end

local Node = torch.getmetatable('nngraph.Node')
function Node.__sub__(a, b)
   return b(a)
end

return nngraph
