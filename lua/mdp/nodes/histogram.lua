-- mdp.nodes.HistogramNode{hist_fraction = 1.0, hist_filename = nil, input_dim, output_dim, dtype}:
-- executes as the identity; training keeps a random fraction hist_fraction of the rows (all at
-- 1.0) in data_hist. With hist_filename, stop_training saves data_hist there (torch.save) and
-- clears it.
local mdp = require 'mdp'
local utils = mdp.utils
local nodes = require 'mdp.nodes'

local HistogramNode = torch.class('mdp.nodes.HistogramNode', 'mdp.Node', nodes)
mdp.preserve_dim(HistogramNode)

HistogramNode._init_args = { 'hist_fraction', 'hist_filename', 'input_dim', 'output_dim', 'dtype' }

function HistogramNode:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   self:_histogram_init(o)
end

function HistogramNode:_histogram_init(o)
   self:_node_init(o.input_dim, o.output_dim, o.dtype)
   self._hist_filename = o.hist_filename
   self.hist_fraction = o.hist_fraction or 1.0
   self.data_hist = nil
end

function HistogramNode:_get_supported_dtypes()
   local all = {}
   for _, t in ipairs(utils.FLOAT_DTYPES) do all[#all + 1] = t end
   for _, t in ipairs(utils.INTEGER_DTYPES) do all[#all + 1] = t end
   return all
end

function HistogramNode:_train(x)
   if self.hist_fraction < 1.0 then
      local keep = torch.rand(x:size(1)):lt(self.hist_fraction)
      local idx = {}
      for i = 1, x:size(1) do
         if keep[i] == 1 then idx[#idx + 1] = i end
      end
      if #idx == 0 then return end
      x = x:index(1, torch.LongTensor(idx))
   end
   if self.data_hist ~= nil then
      self.data_hist = torch.cat(self.data_hist, x, 1)
   else
      self.data_hist = x:clone()
   end
end

function HistogramNode:_stop_training()
   if self._hist_filename then
      torch.save(self._hist_filename, self.data_hist)
      self.data_hist = nil
   end
end

return HistogramNode
