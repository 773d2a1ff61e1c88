-- mdp.utils: arguments, dtypes, the covariance accumulator, the eigen-solver (MDP's numpy
-- fallback `symeig`), pinv, the quadratic expansion.
local errors = require 'mdp.errors'
local raise = errors.raise

local utils = {}

---------------------------------------------------------------------------------------------------
-- dtypes: MDP's names ('float32', 'float64', ...) and torch's tensor type names both work; nodes
-- keep torch's ('torch.DoubleTensor').

local dtype_names = {
   float32 = 'torch.FloatTensor', float = 'torch.FloatTensor', single = 'torch.FloatTensor',
   float64 = 'torch.DoubleTensor', double = 'torch.DoubleTensor',
   int8 = 'torch.CharTensor', uint8 = 'torch.ByteTensor', int16 = 'torch.ShortTensor',
   int32 = 'torch.IntTensor', int = 'torch.IntTensor', int64 = 'torch.LongTensor',
   long = 'torch.LongTensor',
}
for _, t in pairs(dtype_names) do dtype_names[t] = t end
utils.dtype_names = dtype_names

utils.FLOAT_DTYPES = { 'torch.FloatTensor', 'torch.DoubleTensor' }
utils.INTEGER_DTYPES = { 'torch.ByteTensor', 'torch.CharTensor', 'torch.ShortTensor',
   'torch.IntTensor', 'torch.LongTensor' }

-- The canonical dtype (a tensor type name) of d, or nil when unknown.
function utils.dtype(d)
   if d == nil then return nil end
   if type(d) == 'table' and torch.typename(d) then d = torch.typename(d) end
   return dtype_names[d]
end

---------------------------------------------------------------------------------------------------
-- Arguments: Class{name = value, ...} or Class(value1, value2, ...) in MDP's order.

local function is_plain_table(t)
   return type(t) == 'table' and torch.typename(t) == nil
end
utils.is_plain_table = is_plain_table

-- The options given to a constructor of `cls` (its name) whose arguments are `names` in order.
-- Unknown option names raise a TypeError naming them.
function utils.options(cls, names, ...)
   local n = select('#', ...)
   local first = ...
   local opts
   if n == 1 and is_plain_table(first) then
      opts = first
      local known = {}
      for _, k in ipairs(names) do known[k] = true end
      for k in pairs(opts) do
         if type(k) == 'string' and not known[k] then
            raise('TypeError', cls, "unexpected argument '%s' (arguments: %s)", k, table.concat(names, ', '))
         end
      end
   else
      if n > #names then
         raise('TypeError', cls, 'takes at most %d arguments (%d given)', #names, n)
      end
      opts = {}
      for i = 1, n do opts[names[i]] = (select(i, ...)) end
   end
   return opts
end

---------------------------------------------------------------------------------------------------
-- Tensors

utils.is_tensor = torch.isTensor

function utils.refcast(x, dtype)
   if dtype == nil or x:type() == dtype then return x end
   return x:type(dtype)
end

-- A deep copy (classes kept), through torch's serializer.
function utils.deepcopy(obj)
   return torch.deserialize(torch.serialize(obj))
end

-- Concatenation of 2-D tensors along rows.
function utils.cat_rows(list)
   if #list == 1 then return list[1] end
   return torch.cat(list, 1)
end

---------------------------------------------------------------------------------------------------
-- CovarianceMatrix(dtype, bias): update(x) adds xᵀx, the column sums and the number of rows;
-- fix(center) returns (cov, avg, tlen) and empties it.

local lapack = require 'mdp.lapack'
local serial_begin = lapack.serial_begin or function() end
local serial_end = lapack.serial_end or function() end
local syrk_upper = lapack.available and lapack.syrk_upper or nil

local Cov = torch.class('mdp.utils.CovarianceMatrix', utils)

function Cov.__eq__(a, b) return rawequal(a, b) end

function Cov:__init(dtype, bias)
   if is_plain_table(dtype) then dtype, bias = dtype.dtype, dtype.bias end
   self._dtype = utils.dtype(dtype)
   self.bias = bias and true or false
   self._cov_mtx = nil
   self._avg = nil
   self._tlen = 0
end

function Cov:_init_internals(x)
   local n = x:size(2)
   if self._dtype == nil then self._dtype = x:type() end
   self._cov_mtx = torch.Tensor():type(self._dtype):resize(n, n):zero()
   self._avg = torch.Tensor():type(self._dtype):resize(1, n):zero()
end

-- A row of N ones of type T, kept for the next call (column sums as one matrix product,
-- without a tensor per call).
local ones_cache = {}
function utils.ones_row(T, N)
   local o = ones_cache[T]
   if o == nil or o:size(2) ~= N then
      o = torch.Tensor():type(T):resize(1, N):fill(1)
      ones_cache[T] = o
   end
   return o
end

function Cov:update(x)
   if self._cov_mtx == nil then self:_init_internals(x) end
   if x:type() ~= self._dtype then x = x:type(self._dtype) end
   local N, n = x:size(1), x:size(2)
   local threads = serial_begin(N * n * n / 2)
   -- only the upper triangle (fix() mirrors it); a full product where syrk is not available
   if not (syrk_upper and syrk_upper(self._cov_mtx, x)) then self._cov_mtx:addmm(x:t(), x) end
   self._avg:addmm(utils.ones_row(self._dtype, N), x)
   serial_end(threads)
   self._tlen = self._tlen + N
end

-- x·m (an n×k matrix), minus the row `sub` (1×k) from every row when given; single-threaded
-- when small.
function utils.mm(x, m, sub)
   local N = x:size(1)
   local threads = serial_begin(N * x:size(2) * m:size(2))
   local y = torch.mm(x, m)
   if sub ~= nil then
      y:addmm(-1, utils.ones_row(y:type(), N):t(), sub)
   end
   serial_end(threads)
   return y
end

function Cov:fix(center)
   if center == nil then center = true end
   local tlen = self._tlen
   if self._cov_mtx == nil or tlen == 0 then
      raise('TrainingException', 'CovarianceMatrix.fix', 'no data was accumulated')
   end
   -- the accumulated upper triangle, mirrored
   local cov = torch.triu(self._cov_mtx)
   cov:add(torch.triu(self._cov_mtx, 1):t())
   local avg = self._avg
   local div = self.bias and tlen or (tlen - 1)
   if center then
      cov:addr(-1 / tlen, avg[1], avg[1])
   end
   cov:div(div)
   avg:div(tlen)
   self._cov_mtx, self._avg, self._tlen = nil, nil, 0
   return cov, avg, tlen
end

-- The accumulator's three raw parts added into `c` (MDP's _join_covariance).
function utils.join_covariance(c, fc)
   if fc._cov_mtx == nil then return end
   if c._cov_mtx == nil then
      c._cov_mtx, c._avg, c._tlen = fc._cov_mtx, fc._avg, fc._tlen
      c._dtype = c._dtype or fc._dtype
      return
   end
   c._cov_mtx:add(fc._cov_mtx)
   c._avg:add(fc._avg)
   c._tlen = c._tlen + fc._tlen
end

---------------------------------------------------------------------------------------------------
-- symeig(A [, B] [, range]): eigenvalues ascending and eigenvectors as columns of A w = λ B w,
-- normalized Wᵀ B W = I; range = {lo, hi}, 1-based and inclusive, as MDP's.

utils.use_lapack = lapack.available

-- range {lo, hi} clamped to 1..n as MDP's (nil stays nil)
local function sanitize(range, n)
   if range == nil then return nil end
   local lo, hi = range[1], range[2]
   if lo < 1 then lo = 1 end
   if lo > n then lo = n end
   if hi > n then hi = n end
   if lo > hi then lo, hi = hi, lo end
   return lo, hi
end

-- Sorts the eigenpairs by eigenvalue, ascending (LAPACK gives them so; this keeps it explicit).
local function sort_pairs(w, Z)
   local n = w:size(1)
   local ascending = true
   for i = 2, n do
      if w[i] < w[i - 1] then ascending = false break end
   end
   if ascending then return w, Z end
   local sorted, idx = torch.sort(w)
   return sorted, Z:index(2, idx)
end

-- Eigenpairs of a symmetric matrix, ascending; only lo..hi when given.
local function eigh(A, where, lo, hi)
   if utils.use_lapack then
      local ok, w, Z = pcall(lapack.eigh, A, lo, hi)
      if not ok then raise('SymeigException', where, '%s', tostring(w)) end
      if w ~= nil then return w, Z end
   end
   local ok, w, Z = pcall(torch.symeig, A, 'V', 'L')
   if not ok then raise('SymeigException', where, '%s', tostring(w)) end
   w, Z = sort_pairs(w, Z)
   if lo ~= nil then
      w, Z = w:narrow(1, lo, hi - lo + 1):clone(), Z:narrow(2, lo, hi - lo + 1):clone()
   end
   return w, Z
end
utils.eigh = eigh

local function fmt_values(w)
   local t = {}
   for i = 1, math.min(w:size(1), 8) do t[i] = ('%.6g'):format(w[i]) end
   if w:size(1) > 8 then t[#t + 1] = '...' end
   return '[' .. table.concat(t, ' ') .. ']'
end
utils.fmt_values = fmt_values

local function slice_range(w, Z, range)
   if range == nil then return w, Z end
   local lo, hi = sanitize(range, w:size(1))
   return w:narrow(1, lo, hi - lo + 1):clone(), Z:narrow(2, lo, hi - lo + 1):clone()
end

function utils.symeig(A, B, range)
   local n = A:size(1)
   local lo, hi = sanitize(range, n)
   if B == nil then
      return eigh(A, 'symeig', lo, hi)
   end
   if utils.use_lapack then
      -- B positive definite: the Cholesky reduction (LAPACK's sygv), which agrees with MDP's
      -- eigh-based route to rounding; otherwise MDP's route, with its error for min(wB) < 0.
      local ok, w, Z = pcall(lapack.sygv, A, B, lo, hi)
      if not ok then raise('SymeigException', 'symeig', '%s', tostring(w)) end
      if w ~= nil then return w, Z end
   end
   local wB, ZB = eigh(B, 'symeig')
   if wB:min() < 0 then
      raise('SymeigException', 'symeig', 'Got negative eigenvalues: %s', fmt_values(wB))
   end
   ZB:cdiv(torch.sqrt(wB):view(1, n):expandAs(ZB))
   local C = torch.mm(torch.mm(ZB:t(), A), ZB)
   local w, ZA = eigh(C, 'symeig', lo, hi)
   return w, torch.mm(ZB, ZA)
end

-- The generalized problem for a positive semidefinite B (MDP's rank deficit methods):
-- 'pca' drops the directions where B's eigenvalues are below rank_threshold; 'svd' does the same
-- from B's singular values; 'reg' adds rank_threshold to B's diagonal, solves, and keeps the
-- eigenvectors whose B-norm is close to 1. Returns w, Z and the number of dropped directions.
function utils.symeig_semidefinite(method, A, B, range, rank_threshold)
   rank_threshold = rank_threshold or 1e-12
   if method == 'pca' or method == 'svd' then
      local e, V
      if method == 'pca' then
         e, V = eigh(B, 'symeig_semidefinite_pca')
      else
         local U
         U, e, V = torch.svd(B)
      end
      local keep = {}
      for i = 1, e:size(1) do
         if e[i] >= rank_threshold then keep[#keep + 1] = i end
      end
      local deficit = e:size(1) - #keep
      if #keep == 0 then
         raise('SymeigException', 'symeig_semidefinite', 'no direction of B above rank_threshold')
      end
      local idx = torch.LongTensor(keep)
      local ek, Vk = e:index(1, idx), V:index(2, idx)
      local S = Vk:cdiv(torch.sqrt(ek):view(1, #keep):expandAs(Vk))
      local w, U = eigh(torch.mm(torch.mm(S:t(), A), S), 'symeig_semidefinite_' .. method)
      local Z = torch.mm(S, U)
      w, Z = sort_pairs(w, Z)
      w, Z = slice_range(w, Z, range)
      return w, Z, deficit
   elseif method == 'reg' then
      local Breg = B:clone()
      local n = B:size(1)
      for i = 1, n do Breg[i][i] = Breg[i][i] + rank_threshold end
      local w, Z = utils.symeig(A, Breg)
      -- |sqrt(zᵀ B z) - 1| per column: far from 0 for the directions B does not support
      local m = torch.abs(torch.sqrt(torch.abs(torch.cmul(Z, torch.mm(B, Z)):sum(1))) - 1)[1]
      local off = 0
      while off < m:size(1) and m[off + 1] > 0.5 do off = off + 1 end
      local keep = {}
      if m:narrow(1, off + 1, m:size(1) - off):sum() < 0.5 then
         for i = off + 1, m:size(1) do keep[#keep + 1] = i end
      else
         for i = 1, m:size(1) do
            if m[i] < 0.5 then keep[#keep + 1] = i end
         end
      end
      local deficit = m:size(1) - #keep
      local idx = torch.LongTensor(keep)
      w, Z = w:index(1, idx), Z:index(2, idx)
      w, Z = slice_range(w, Z, range)
      return w, Z, deficit
   end
   raise('ValueError', 'symeig_semidefinite', 'unknown method %s', tostring(method))
end

-- The Moore-Penrose pseudo-inverse, cutting singular values below rcond·max (numpy's 1e-15).
function utils.pinv(A, rcond)
   rcond = rcond or 1e-15
   local U, S, V = torch.svd(A)
   local cutoff = rcond * S:max()
   local Sinv = S:clone()
   for i = 1, S:size(1) do
      Sinv[i] = S[i] > cutoff and 1 / S[i] or 0
   end
   return torch.mm(torch.cmul(V, Sinv:view(1, -1):expandAs(V)), U:t())
end

---------------------------------------------------------------------------------------------------
-- Quadratic expansion: [x1..xn, x1x1, x1x2, .., x1xn, x2x2, .., xnxn] (upper triangle, row-major).

function utils.expanded_dim(n)
   return n + n * (n + 1) / 2
end

local expansion = require 'mdp.expansion'
utils.quadratic_expand = expansion.expand
utils.quadratic_expand_scratch = expansion.expand_scratch

return utils
