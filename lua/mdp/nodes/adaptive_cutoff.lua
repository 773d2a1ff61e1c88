-- mdp.nodes.AdaptiveCutoffNode{lower_cutoff_fraction, upper_cutoff_fraction, hist_fraction = 1.0,
-- hist_filename, input_dim, output_dim, dtype}: a HistogramNode that learns per-column bounds
-- from the training data (sorted per column: lower_bounds = row floor(lcf·N), upper_bounds = row
-- floor(N − ucf·N), 0-based, as MDP's) and clips each column to them when executing. A
-- fraction of nil or 0 means no bound; inverse is the identity.
local mdp = require 'mdp'
local utils = mdp.utils
local nodes = require 'mdp.nodes'

local AdaptiveCutoffNode = torch.class('mdp.nodes.AdaptiveCutoffNode', 'mdp.nodes.HistogramNode', nodes)

AdaptiveCutoffNode._init_args = { 'lower_cutoff_fraction', 'upper_cutoff_fraction', 'hist_fraction',
   'hist_filename', 'input_dim', 'output_dim', 'dtype' }

function AdaptiveCutoffNode:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   self:_histogram_init(o)
   self.lower_cutoff_fraction = o.lower_cutoff_fraction
   self.upper_cutoff_fraction = o.upper_cutoff_fraction
   self.lower_bounds = nil
   self.upper_bounds = nil
end

function AdaptiveCutoffNode:_get_supported_dtypes()
   local all = {}
   for _, t in ipairs(utils.FLOAT_DTYPES) do all[#all + 1] = t end
   for _, t in ipairs(utils.INTEGER_DTYPES) do all[#all + 1] = t end
   return all
end

local function set(f) return f ~= nil and f ~= false and f ~= 0 end

function AdaptiveCutoffNode:_stop_training()
   local lcf, ucf = self.lower_cutoff_fraction, self.upper_cutoff_fraction
   if set(lcf) or set(ucf) then
      local sorted = torch.sort(self.data_hist, 1)
      local N = sorted:size(1)
      if set(lcf) then
         self.lower_bounds = sorted:narrow(1, math.floor(lcf * N) + 1, 1):clone()
      end
      if set(ucf) then
         local row = math.floor(N - ucf * N)
         self.upper_bounds = sorted:narrow(1, math.min(row, N - 1) + 1, 1):clone()
      end
   end
   nodes.HistogramNode._stop_training(self)
end

function AdaptiveCutoffNode:_execute(x)
   if self.lower_bounds == nil and self.upper_bounds == nil then return x end
   x = x:clone()
   if self.lower_bounds ~= nil then x:cmax(self.lower_bounds:expandAs(x)) end
   if self.upper_bounds ~= nil then x:cmin(self.upper_bounds:expandAs(x)) end
   return x
end

return AdaptiveCutoffNode
