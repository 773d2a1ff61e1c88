-- mdp.nodes.SFANode{input_dim, output_dim, dtype, include_last_sample = true,
-- rank_deficit_method = 'none'}: slow feature analysis.
--
-- train(x [, include_last_sample]) needs at least 2 rows: it accumulates the covariance of x
-- and the (uncentered) covariance of its time derivative x[t+1] − x[t], within the chunk only.
-- stop_training solves dcov·w = λ·cov·w for the output_dim slowest features: d (ascending, the
-- slowest first), sf (input_dim × output_dim), avg, tlen, dtlen. execute(x [, n]) is
-- x·sf[:, 1..n] − avg·sf; inverse(y) is y·pinv(sf) + avg. rank_deficit_method 'pca' (= 'auto'),
-- 'reg' or 'svd' copes with a singular covariance (attributes rank_threshold = 1e-12 and
-- rank_deficit, the number of dropped directions).
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise
local nodes = require 'mdp.nodes'

local SFANode = torch.class('mdp.nodes.SFANode', 'mdp.Node', nodes)

SFANode._init_args = { 'input_dim', 'output_dim', 'dtype', 'include_last_sample', 'rank_deficit_method' }

local methods = { none = true, pca = true, auto = true, reg = true, svd = true }

function SFANode:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   self:_sfa_init(o)
end

function SFANode:_sfa_init(o)
   self:_node_init(o.input_dim, o.output_dim, o.dtype)
   if o.include_last_sample == nil then
      self._include_last_sample = true
   else
      self._include_last_sample = o.include_last_sample and true or false
   end
   self:set_rank_deficit_method(o.rank_deficit_method or 'none')
   self.rank_threshold = 1e-12
   self.rank_deficit = 0
   self._cov_mtx = utils.CovarianceMatrix(self.dtype)
   self._dcov_mtx = utils.CovarianceMatrix(self.dtype)
   self.d, self.sf, self.avg, self._bias = nil, nil, nil, nil
   self.tlen, self.dtlen = nil, nil
end

function SFANode:set_rank_deficit_method(method)
   if method == 'ldl' then
      raise('NodeException', self:_name() .. '.set_rank_deficit_method',
         "rank_deficit_method 'ldl' needs SciPy in MDP and is not available; use 'pca', 'reg' or 'svd'")
   end
   if not methods[method] then
      raise('ValueError', self:_name() .. '.set_rank_deficit_method', 'Invalid value for rank_deficit_method: %s',
         tostring(method))
   end
   self.rank_deficit_method = method
end

function SFANode:_set_dtype(t)
   self.dtype = t
   for _, c in ipairs { self._cov_mtx, self._dcov_mtx } do
      if c and c._cov_mtx == nil then c._dtype = t end
   end
end

-- The time derivative of x, row by row (x[t+1] − x[t]); into `out` when given.
function SFANode:time_derivative(x, out)
   local n = x:size(1)
   out = out or x.new()
   out:resize(n - 1, x:size(2)):copy(x:narrow(1, 2, n - 1))
   return out:add(-1, x:narrow(1, 1, n - 1))
end

-- scratch space for the derivatives, per tensor type (not part of any node)
local scratch = {}

function SFANode:_check_train_args(x, include_last_sample)
   if x:size(1) < 2 then
      raise('TrainingException', self:_name() .. '.train',
         'Need at least 2 time samples to compute time derivative (%d given)', x:size(1))
   end
end

-- The covariance updates of one chunk (x already expanded by SFA2Node, which also gives its
-- derivative dx).
function SFANode:_sfa_update(x, include_last_sample, dx)
   if include_last_sample == nil then include_last_sample = self._include_last_sample end
   if include_last_sample then
      self._cov_mtx:update(x)
   else
      self._cov_mtx:update(x:narrow(1, 1, x:size(1) - 1))
   end
   if dx == nil then
      local t = x:type()
      local buf = scratch[t]
      if buf == nil then
         buf = x.new()
         scratch[t] = buf
      end
      dx = self:time_derivative(x, buf)
   end
   self._dcov_mtx:update(dx)
end

function SFANode:_train(x, include_last_sample)
   self:_sfa_update(x, include_last_sample)
end

-- The range of the slowest features (1-based, inclusive); sets output_dim if unset.
function SFANode:_set_range(n)
   n = n or self.input_dim
   if self.output_dim ~= nil and self.output_dim <= n then
      return { 1, self.output_dim }
   end
   self.output_dim = n
   return nil
end

function SFANode:_solve(where, n)
   self.cov_mtx, self.avg, self.tlen = self._cov_mtx:fix()
   self.dcov_mtx, self.davg, self.dtlen = self._dcov_mtx:fix(false)
   local rng = self:_set_range(n)
   local ok, d, sf = pcall(function()
      local m = self.rank_deficit_method
      if m == 'none' then return utils.symeig(self.dcov_mtx, self.cov_mtx, rng) end
      if m == 'auto' then m = 'pca' end
      local w, Z, deficit = utils.symeig_semidefinite(m, self.dcov_mtx, self.cov_mtx, rng, self.rank_threshold)
      self.rank_deficit = deficit
      return w, Z
   end)
   if not ok then
      raise('NodeException', where, '%s; covariance matrices may be singular (try rank_deficit_method=\'auto\')',
         tostring(d))
   end
   if d:min() < 0 then
      raise('NodeException', where,
         "Got negative eigenvalues: %s. You may either set output_dim to be smaller, or prepend the SFANode "
         .. "with a PCANode{reduce=true} or PCANode{svd=true}, or set a rank deficit method "
         .. "(rank_deficit_method='auto') and try higher values for rank_threshold", utils.fmt_values(d))
   end
   self.d, self.sf = d, sf
   self._bias = torch.mm(self.avg, self.sf)
   -- the covariance matrices are only kept when solving fails
   self.cov_mtx, self.dcov_mtx = nil, nil
end

function SFANode:_stop_training()
   self:_solve(self:_name() .. '.stop_training')
end

function SFANode:_execute(x, n)
   local sf, bias = self.sf, self._bias
   if n ~= nil then
      sf, bias = sf:narrow(2, 1, n), bias:narrow(2, 1, n)
   end
   return utils.mm(x, sf, bias)
end

function SFANode:_inverse(y)
   if self._pinv_sf == nil then self._pinv_sf = utils.pinv(self.sf) end
   local x = torch.mm(y, self._pinv_sf)
   return x:add(self.avg:expandAs(x))
end

-- The eta values of the slow features over a time of t samples: t/(2π)·sqrt(d).
function SFANode:get_eta_values(t)
   self:_if_training_stop_training('get_eta_values')
   return torch.sqrt(self.d):mul((t or 1) / (2 * math.pi))
end

return SFANode
