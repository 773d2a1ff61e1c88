-- mdp.nodes.PCANode{input_dim, output_dim, dtype, svd = false, reduce = false, var_rel = 1e-12,
-- var_abs = 1e-15, var_part = nil}: principal component analysis.
--
-- output_dim is a count of components, or a fraction 0 < f < 1 of the variance to keep (the
-- smallest number of components whose variance reaches it; 1 means one component). After
-- training: avg (1×n), v (n×k, the components as columns, by decreasing variance), d (their
-- variances), total_variance, explained_variance, tlen. execute(x [, n]) projects on the first n
-- components: (x − avg)·v; inverse(y) reconstructs y·vᵀ + avg from the first cols(y) ones.
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise
local nodes = require 'mdp.nodes'

local PCANode = torch.class('mdp.nodes.PCANode', 'mdp.Node', nodes)

PCANode._init_args = { 'input_dim', 'output_dim', 'dtype', 'svd', 'reduce', 'var_rel', 'var_abs', 'var_part' }

function PCANode:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   local output_dim = o.output_dim
   self.desired_variance = nil
   if output_dim ~= nil and type(output_dim) == 'number' and output_dim > 0 and output_dim < 1 then
      self.desired_variance = output_dim
      output_dim = nil
   end
   self:_node_init(o.input_dim, output_dim, o.dtype)
   self.svd = o.svd and true or false
   self.reduce = o.reduce and true or false
   self.var_rel = o.var_rel or 1e-12
   self.var_abs = o.var_abs or 1e-15
   self.var_part = o.var_part
   self._cov_mtx = utils.CovarianceMatrix(self.dtype)
   self.avg, self.v, self.d = nil, nil, nil
   self.total_variance, self.explained_variance, self.tlen = nil, nil, nil
end

function PCANode:_set_dtype(t)
   self.dtype = t
   if self._cov_mtx and self._cov_mtx._cov_mtx == nil then self._cov_mtx._dtype = t end
end

function PCANode:_check_output(y, fname)
   fname = fname or 'inverse'
   local where = self:_name() .. '.' .. fname
   if not torch.isTensor(y) or y:dim() ~= 2 then
      raise('NodeException', where, 'y has rank %d, should be 2', torch.isTensor(y) and y:dim() or 0)
   end
   if y:size(2) == 0 or y:size(2) > self.output_dim then
      raise('NodeException', where, 'y has dimension %d, should be 0<y<=%d', y:size(2), self.output_dim)
   end
end

function PCANode:get_explained_variance()
   return self.explained_variance
end

function PCANode:_train(x)
   self._cov_mtx:update(x)
end

-- The eigenvector range (1-based, inclusive) of the top output_dim components; sets output_dim
-- when neither it nor a variance fraction is given.
function PCANode:_adjust_output_dim()
   if self.desired_variance == nil and self.output_dim == nil then
      self.output_dim = self.input_dim
      return nil
   end
   if self.output_dim ~= nil and self.output_dim >= 1 then
      return { self.input_dim - self.output_dim + 1, self.input_dim }
   end
   return nil
end

-- Eigenpairs of a covariance matrix, ascending, from its SVD (PCANode{svd = true}).
local function svd_eig(cov, range)
   local U, S = torch.svd(cov)
   local n = S:size(1)
   local idx = torch.range(n, 1, -1):long()
   local d, v = S:index(1, idx), U:index(2, idx)
   if range then
      local lo, hi = math.max(1, range[1]), math.min(n, range[2])
      d, v = d:narrow(1, lo, hi - lo + 1):clone(), v:narrow(2, lo, hi - lo + 1):clone()
   end
   return d, v
end

local function reverse(d, v)
   local n = d:size(1)
   local idx = torch.range(n, 1, -1):long()
   return d:index(1, idx), v:index(2, idx)
end

local function keep_first(d, v, k)
   if k >= d:size(1) then return d, v end
   return d:narrow(1, 1, k):clone(), v:narrow(2, 1, k):clone()
end

function PCANode:_stop_training()
   local where = self:_name() .. '.stop_training'
   local cov, avg, tlen = self._cov_mtx:fix()
   self.avg, self.tlen = avg, tlen
   local rng = self:_adjust_output_dim()
   local vartot = cov:trace()
   local ok, d, v = pcall(function()
      if self.svd then return svd_eig(cov, rng) end
      return utils.symeig(cov, nil, rng)
   end)
   if not ok then
      raise('NodeException', where, '%s; covariance matrix may be singular. Try setting svd=true.', tostring(d))
   end
   if not (self.reduce or self.svd or self.desired_variance ~= nil) and d:min() < 0 then
      raise('NodeException', where,
         'Got negative eigenvalues: %s. You may either set output_dim to be smaller, or set reduce=true and/or svd=true',
         utils.fmt_values(d))
   end
   d, v = reverse(d, v)
   if self.desired_variance ~= nil then
      local k = 0
      while k < d:size(1) and d[k + 1] > 0 do k = k + 1 end
      -- the smallest count whose cumulated variance fraction reaches desired_variance
      local cum, keep = 0, k
      for i = 1, k do
         cum = cum + d[i] / vartot
         if cum >= self.desired_variance then keep = i break end
      end
      d, v = keep_first(d, v, keep)
      self.output_dim = keep
   end
   if self.reduce then
      local k = 0
      while k < d:size(1) and d[k + 1] > self.var_abs do k = k + 1 end
      if k == 0 then raise('NodeException', where, 'No eigenvalues larger than var_abs=%e!', self.var_abs) end
      local dmax = d[1]
      local k2 = 0
      while k2 < k and d[k2 + 1] / dmax > self.var_rel do k2 = k2 + 1 end
      k = k2
      if self.var_part then
         local k3 = 0
         while k3 < k and d[k3 + 1] / vartot > self.var_part do k3 = k3 + 1 end
         k = k3
      end
      d, v = keep_first(d, v, k)
      self.output_dim = k
   end
   self.explained_variance = d:sum() / vartot
   self.d, self.v = d, v
   self._avg_v = nil
   self.total_variance = vartot
end

-- The projection matrix (input_dim × output_dim), or its transpose with transposed = false.
function PCANode:get_projmatrix(transposed)
   self:_if_training_stop_training('get_projmatrix')
   if transposed == false or transposed == 0 then return self.v:t() end
   return self.v
end

-- The reconstruction matrix (output_dim × input_dim), or its transpose with transposed = false.
function PCANode:get_recmatrix(transposed)
   self:_if_training_stop_training('get_recmatrix')
   if transposed == false or transposed == 0 then return self.v end
   return self.v:t()
end

-- (x − avg)·v, as x·v − avg·v (avg·v kept: no centred copy of x per call)
function PCANode:_execute(x, n)
   local v, avg_v = self.v, self._avg_v
   if avg_v == nil or avg_v:size(2) ~= v:size(2) then
      avg_v = torch.mm(self.avg, v)
      self._avg_v = avg_v
   end
   if n ~= nil then v, avg_v = v:narrow(2, 1, n), avg_v:narrow(2, 1, n) end
   return utils.mm(x, v, avg_v)
end

function PCANode:_inverse(y, n)
   n = n or y:size(2)
   if n > self.output_dim then
      raise('NodeException', self:_name() .. '.inverse', 'y has dimension %d, should be at most %d', n, self.output_dim)
   end
   local rec = self:get_recmatrix():narrow(1, 1, n)
   local x = torch.mm(y:narrow(2, 1, n), rec)
   return x:add(self.avg:expandAs(x))
end

return PCANode
