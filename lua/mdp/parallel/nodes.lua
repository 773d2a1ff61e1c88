-- The parallel extension's fork and join for MDP's nodes and the hinet containers. A fork is a
-- fresh node with empty accumulators (the default fork); join adds its raw sums into the parent,
-- which adopts them when it has none yet. Only the parent solves (stop_training).
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise
local parallel = require 'mdp.parallel'
local nodes = mdp.nodes
local hinet = mdp.hinet

local extend = parallel.extend

local function default_fork(self) return self:_default_fork() end

-- PCANode and WhiteningNode (which inherits these).
extend(nodes.PCANode, {
   _fork = default_fork,
   _join = function(self, forked)
      if self._cov_mtx._cov_mtx == nil then
         if forked._cov_mtx._dtype and self.dtype == nil then self:set_dtype(forked._cov_mtx._dtype) end
         self._cov_mtx = forked._cov_mtx
      else
         utils.join_covariance(self._cov_mtx, forked._cov_mtx)
      end
   end,
})

-- SFANode and SFA2Node.
extend(nodes.SFANode, {
   _fork = default_fork,
   _join = function(self, forked)
      if self._cov_mtx._cov_mtx == nil then
         if forked._cov_mtx._dtype and self.dtype == nil then self:set_dtype(forked._cov_mtx._dtype) end
         self._cov_mtx = forked._cov_mtx
         self._dcov_mtx = forked._dcov_mtx
      else
         utils.join_covariance(self._cov_mtx, forked._cov_mtx)
         utils.join_covariance(self._dcov_mtx, forked._dcov_mtx)
      end
   end,
})

-- FDANode: phase 0 forks fresh (class means); phase 1 forks a copy keeping the means.
extend(nodes.FDANode, {
   _fork = function(self)
      if self:get_current_train_phase() == 1 then
         local f = self:copy()
         f._S_W = nil
         f._allcov = utils.CovarianceMatrix(self.dtype)
         return f
      end
      return self:_default_fork()
   end,
   _join = function(self, forked)
      if self:get_current_train_phase() == 1 then
         if forked:get_current_train_phase() ~= 1 then
            raise('NotForkableParallelException', 'FDANode.join',
               'This node is in training phase 1, but the forked node is not.')
         end
         if self._S_W == nil then
            self._allcov = forked._allcov
            self._S_W = forked._S_W
         elseif forked._S_W ~= nil then
            utils.join_covariance(self._allcov, forked._allcov)
            self._S_W:add(forked._S_W)
         end
      else
         for l, m in pairs(forked.means) do
            if self.means[l] ~= nil then
               self.means[l]:add(m)
               self.tlens[l] = self.tlens[l] + forked.tlens[l]
            else
               self.means[l] = m
               self.tlens[l] = forked.tlens[l]
            end
         end
      end
   end,
})

-- HistogramNode and AdaptiveCutoffNode.
extend(nodes.HistogramNode, {
   _fork = default_fork,
   _join = function(self, forked)
      if self.data_hist ~= nil and forked.data_hist ~= nil then
         self.data_hist = torch.cat(self.data_hist, forked.data_hist, 1)
      elseif forked.data_hist ~= nil then
         self.data_hist = forked.data_hist
      end
   end,
})

-- FlowNode: forks its first training inner node and those that need an execute fork; the
-- other inner nodes are shared.
extend(hinet.FlowNode, {
   _fork = function(self)
      local list, found = {}, false
      local flow = self._flow
      for i = 1, #flow do
         local node = flow[i]
         if not found and node:is_training() then
            found = true
            list[i] = node:fork()
         elseif node:use_execute_fork() then
            list[i] = node:fork()
         else
            list[i] = node
         end
      end
      return getmetatable(self).new(getmetatable(flow).new(list))
   end,
   _join = function(self, forked)
      local found = false
      local fflow = forked._flow
      for i = 1, #fflow do
         local node = fflow[i]
         if not found and node:is_training() then
            found = true
            self._flow[i]:join(node)
         elseif node:use_execute_fork() then
            self._flow[i]:join(node)
         end
      end
   end,
   use_execute_fork = function(self)
      for i = 1, #self._flow do
         if self._flow[i]:use_execute_fork() then return true end
      end
      return false
   end,
})

-- Layer: forks the nodes still training, shares the others.
extend(hinet.Layer, {
   _fork = function(self)
      local list = {}
      for i, node in ipairs(self.nodes) do
         list[i] = node:is_training() and node:fork() or node
      end
      return getmetatable(self).new(list)
   end,
   _join = function(self, forked)
      for i, node in ipairs(self.nodes) do
         if node:is_training() then node:join(forked.nodes[i]) end
      end
   end,
   use_execute_fork = function(self)
      for _, node in ipairs(self.nodes) do
         if node:use_execute_fork() then return true end
      end
      return false
   end,
})

extend(hinet.CloneLayer, {
   _fork = function(self)
      return getmetatable(self).new { node = self.node:fork(), n_nodes = #self.nodes }
   end,
   _join = function(self, forked)
      self.node:join(forked.node)
   end,
   use_execute_fork = function(self)
      return self.node:use_execute_fork()
   end,
})

return parallel
