-- nn.Normalize(p[, eps]): each vector (a 1-D input, or each row of a 2-D batch) divided by its
-- Lp norm, N = (sum |x_i|^p + eps)^(1/p); p = math.huge uses the largest |x_i| (plus eps).
--
-- dy_i/dx_j = d_ij / N - x_i dN/dx_j / N^2, with dN/dx_j = x_j |x_j|^(p-2) / N^(p-1), so
-- gradInput_j = (gradOutput_j N^p - (gradOutput . x) x_j |x_j|^(p-2)) / N^(p+1); for the infinity
-- norm only the largest element moves N: dN/dx_k = sign(x_k).

local indexing = require 'nn.engine.indexing'

local Normalize, parent = torch.class('nn.Normalize', 'nn.Module')

function Normalize:__init(p, eps)
   parent.__init(self)
   assert(p, 'nn.Normalize: the p of the norm is expected')
   assert(p > 0, 'nn.Normalize: ' .. p .. '-norm not supported')
   self.p = p
   self.eps = eps or 1e-10
end

-- The input as a batch of rows.
local function rows(input)
   assert(input:dim() <= 2, 'nn.Normalize: only 1-D inputs and 2-D batches are supported')
   return input:dim() == 1 and input:view(1, -1) or input
end

function Normalize:updateOutput(input)
   local x = rows(input)
   self.norm = self.norm or x.new()
   self.buffer = self.buffer or x.new()
   if self.p == math.huge then
      self._indices = indexing.buffer(self._indices, x)
      self.buffer:resizeAs(x):abs(x)
      torch.max(self.norm, self._indices, self.buffer, 2)
      self.norm:add(self.eps)
   else
      self.normp = self.normp or x.new()
      self.buffer:resizeAs(x):abs(x):pow(self.p)
      self.normp:sum(self.buffer, 2):add(self.eps)
      self.norm:resizeAs(self.normp):pow(self.normp, 1 / self.p)
   end
   self._output = self._output or x.new()
   self._output:resizeAs(x):cdiv(x, self.norm:expandAs(x))
   self.output:view(self._output, input:size())
   return self.output
end

function Normalize:updateGradInput(input, gradOutput)
   local x = rows(input)
   local g = rows(gradOutput:contiguous())
   local n, d = x:size(1), x:size(2)
   -- dot = sum_i gradOutput_i x_i, per row
   local dot = x.new():resizeAs(x):cmul(x, g):sum(2)
   self._gradInput = self._gradInput or x.new()
   if self.p == math.huge then
      -- gradOutput / N - dot * sign(x_k) e_k / N^2
      self._gradInput:resizeAs(x):cdiv(g, self.norm:expandAs(x))
      local signs = x:gather(2, self._indices):sign()
      local corr = signs:cmul(dot):cdiv(self.norm):cdiv(self.norm):mul(-1)
      self._gradInput:scatterAdd(2, self._indices, corr)
   else
      -- buffer = x |x|^(p-2) (eps keeps |x|^(p-2) finite at 0 when p < 2)
      local absx = x.new():resizeAs(x):abs(x)
      if self.p < 2 then absx:add(self.eps) end
      self.buffer:resizeAs(x):pow(absx, self.p - 2):cmul(x)
      self._gradInput:resizeAs(x):cmul(g, self.normp:expandAs(x))
      self._gradInput:addcmul(-1, self.buffer, dot:expandAs(x))
      local denom = self.norm.new():resizeAs(self.norm):pow(self.norm, self.p + 1)
      self._gradInput:cdiv(denom:expandAs(x))
   end
   self.gradInput:view(self._gradInput, input:size())
   return self.gradInput
end

-- nn.Normalize(2), or nn.Normalize(1.500000) for a fractional p (inf for the infinity norm).
function Normalize:__tostring__()
   local format = self.p % 1 == 0 and '%s(%d)' or '%s(%f)'
   return string.format(format, torch.type(self), self.p)
end

function Normalize:type(type, tensorCache)
   self._indices = nil
   parent.type(self, type, tensorCache)
   return self
end

function Normalize:clearState()
   nn.utils.clear(self, { '_output', '_indices', '_gradInput', 'buffer', 'norm', 'normp', 'cross' })
   return parent.clearState(self)
end

return Normalize
