-- mdp.nodes.FDANode{input_dim, output_dim, dtype}: Fisher discriminant analysis, in two training
-- phases. train(x, labels) takes a label per row (a list or a 1-D tensor; numbers or strings)
-- or one label for the whole chunk. Phase 0 gathers the class means, phase 1 the total
-- covariance S_T and the within-class scatter S_W; stop_training solves S_W·v = λ·S_T·v for the
-- output_dim smallest λ. After training: v, d, avg, tlen, means, tlens.
-- execute(x [, n]) is (x − avg)·v[:, 1..n]; inverse(y) is y·pinv(v) + avg.
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise
local nodes = require 'mdp.nodes'

local FDANode = torch.class('mdp.nodes.FDANode', 'mdp.Node', nodes)

FDANode._train_args_required = { 'labels' }

function FDANode:__init(...)
   local o = utils.options(self:_name(), self._init_args, ...)
   self:_node_init(o.input_dim, o.output_dim, o.dtype)
   self.means = {}
   self.tlens = {}
   self._S_W = nil
   self._allcov = utils.CovarianceMatrix(self.dtype)
   self.v, self.avg, self.d, self.tlen = nil, nil, nil, nil
end

function FDANode:_set_dtype(t)
   self.dtype = t
   if self._allcov and self._allcov._cov_mtx == nil then self._allcov._dtype = t end
end

local seq = {
   { function(self, ...) return self:_train_means(...) end,
     function(self, ...) return self:_stop_means(...) end },
   { function(self, ...) return self:_train_fda(...) end,
     function(self, ...) return self:_stop_fda(...) end },
}

function FDANode:_get_train_seq() return seq end

function FDANode:_check_train_args(x, labels)
   local where = self:_name() .. '.train'
   if labels == nil then
      raise('TrainingException', where, 'labels are required (a label per row, or one for the chunk)')
   end
   local n
   if torch.isTensor(labels) then
      n = labels:nElement()
   elseif type(labels) == 'table' then
      n = #labels
   end
   if n ~= nil and n ~= x:size(1) then
      raise('TrainingException', where, 'The number of labels should be equal to the number of datapoints (%d != %d)',
         n, x:size(1))
   end
end

-- label -> LongTensor of the rows with that label (in order of first appearance), and the labels.
local function group_rows(x, labels)
   local N = x:size(1)
   if not (torch.isTensor(labels) or type(labels) == 'table') then
      return { [labels] = false }, { labels }
   end
   local flat = torch.isTensor(labels) and labels:contiguous():view(-1) or labels
   local rows, order = {}, {}
   for i = 1, N do
      local l = flat[i]
      local r = rows[l]
      if r == nil then
         r = {}
         rows[l] = r
         order[#order + 1] = l
      end
      r[#r + 1] = i
   end
   for l, r in pairs(rows) do
      if #r == N then rows[l] = false else rows[l] = torch.LongTensor(r) end
   end
   return rows, order
end

local function rows_of(x, idx)
   if idx == false then return x end
   return x:index(1, idx)
end

function FDANode:_train_means(x, labels)
   local rows, order = group_rows(x, labels)
   for _, l in ipairs(order) do
      local xl = rows_of(x, rows[l])
      local s = xl:sum(1)
      if self.means[l] == nil then
         self.means[l] = s
         self.tlens[l] = xl:size(1)
      else
         self.means[l]:add(s)
         self.tlens[l] = self.tlens[l] + xl:size(1)
      end
   end
end

function FDANode:_stop_means()
   for l, m in pairs(self.means) do
      m:div(self.tlens[l])
   end
end

function FDANode:_train_fda(x, labels)
   self._allcov:update(x)
   local n = x:size(2)
   if self._S_W == nil then self._S_W = x.new(n, n):zero() end
   local rows, order = group_rows(x, labels)
   for _, l in ipairs(order) do
      local m = self.means[l]
      if m == nil then
         raise('TrainingException', self:_name() .. '.train', 'label %s was not seen in the first training phase',
            tostring(l))
      end
      local xl = rows_of(x, rows[l])
      local xc = xl - m:expandAs(xl)
      self._S_W:addmm(xc:t(), xc)
   end
end

function FDANode:_stop_fda()
   local S_T, avg, tlen = self._allcov:fix()
   self.avg, self.tlen = avg, tlen
   local rng = self.output_dim and { 1, self.output_dim } or nil
   local ok, d, v = pcall(utils.symeig, self._S_W, S_T, rng)
   if not ok then
      raise('NodeException', self:_name() .. '.stop_training', '%s; covariance matrices may be singular', tostring(d))
   end
   self.d, self.v = d, v
   self._S_W = nil
end

function FDANode:_execute(x, n)
   local v = self.v
   if n ~= nil then v = v:narrow(2, 1, n) end
   return torch.mm(x - self.avg:expandAs(x), v)
end

function FDANode:_inverse(y)
   if self._pinv_v == nil then self._pinv_v = utils.pinv(self.v) end
   local x = torch.mm(y, self._pinv_v)
   return x:add(self.avg:expandAs(x))
end

return FDANode
