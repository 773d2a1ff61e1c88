-- nn.LookupTable(nIndex, nOutput[, paddingValue, maxNorm, normType]): row i of the weight for
-- each index i of the input (a vector of indices, or a batch of them as a matrix). Rows whose
-- index is paddingValue get no gradient; with maxNorm, looked-up rows are renormalised first.

local LookupTable, parent = torch.class('nn.LookupTable', 'nn.Module')

LookupTable.__version = 4

function LookupTable:__init(nIndex, nOutput, paddingValue, maxNorm, normType)
   parent.__init(self)
   self.weight = torch.Tensor(nIndex, nOutput)
   self.gradWeight = torch.Tensor(nIndex, nOutput):zero()
   self.paddingValue = paddingValue or 0
   self.maxNorm = maxNorm or nil
   self.normType = normType or nil
   self:reset()
end

function LookupTable:backCompatibility()
   self._count = self._count or torch.IntTensor()
   self._input = self._input or torch.LongTensor()
   if not self.shouldScaleGradByFreq then
      self.shouldScaleGradByFreq = false
   end
end

function LookupTable:accUpdateOnly()
   self.gradWeight = nil
   return self
end

function LookupTable:setPadding(paddingValue)
   self.paddingValue = paddingValue
   return self
end

function LookupTable:setMaxNorm(maxNorm)
   self.maxNorm = maxNorm
   return self
end

function LookupTable:setNormType(normType)
   self.normType = normType
   return self
end

function LookupTable:scaleGradByFreq()
   self.shouldScaleGradByFreq = true
   return self
end

function LookupTable:reset(stdv)
   stdv = stdv or 1
   self.weight:normal(0, stdv)
end

-- The indices as a contiguous LongTensor (the input may be of any numeric type).
local function indices(self, input)
   self._input = self._input or torch.LongTensor()
   if torch.typename(input) == 'torch.LongTensor' and input:isContiguous() then
      return input
   end
   self._input:resize(input:size()):copy(input)
   return self._input
end

-- Renormalises the rows that `idx` names to at most maxNorm (in normType).
local function renorm(self, idx)
   if not self.maxNorm then return end
   local seen = {}
   local p = self.normType or 2
   for i = 1, idx:nElement() do
      local k = idx[i]
      if not seen[k] then
         seen[k] = true
         local row = self.weight[k]
         local norm = row:norm(p)
         if norm > self.maxNorm then
            row:mul(self.maxNorm / (norm + 1e-7))
         end
      end
   end
end

function LookupTable:updateOutput(input)
   self:backCompatibility()
   local idx = indices(self, input)
   if idx:dim() == 1 then
      renorm(self, idx)
      self.output:index(self.weight, 1, idx)
   elseif idx:dim() == 2 then
      local flat = idx:view(-1)
      renorm(self, flat)
      self.output:index(self.weight, 1, flat)
      self.output = self.output:view(idx:size(1), idx:size(2), self.weight:size(2))
   else
      error('nn.LookupTable: input must be a vector or a matrix of indices')
   end
   return self.output
end

function LookupTable:updateGradInput(input, gradOutput)
   -- Indices have no gradient; an empty one of the input's shape keeps containers working.
   if torch.isTensor(self.gradInput) then
      self.gradInput:resizeAs(input):zero()
   end
   return self.gradInput
end

function LookupTable:accGradParameters(input, gradOutput, scale)
   self:backCompatibility()
   scale = scale or 1
   local idx = indices(self, input):view(-1)
   local grads = gradOutput:contiguous():view(idx:nElement(), -1)
   local counts
   if self.shouldScaleGradByFreq then
      counts = {}
      for i = 1, idx:nElement() do counts[idx[i]] = (counts[idx[i]] or 0) + 1 end
   end
   for i = 1, idx:nElement() do
      local k = idx[i]
      if k ~= self.paddingValue then
         local s = counts and scale / counts[k] or scale
         self.gradWeight[k]:add(s, grads[i])
      end
   end
end

function LookupTable:type(type, tensorCache)
   parent.type(self, type, tensorCache)
   -- Indices stay integers whatever the weight's type.
   self._input = torch.LongTensor()
   self._count = torch.IntTensor()
   return self
end

function LookupTable:clearState()
   self._count = nil
   self._input = nil
   return parent.clearState(self)
end

function LookupTable:__tostring__()
   return torch.type(self) .. string.format('(%d -> %d)', self.weight:size(1), self.weight:size(2))
end

return LookupTable
