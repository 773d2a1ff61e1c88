-- nn.Replicate(nFeature[, dim, ndim]): the input repeated nFeature times along a new dimension
-- `dim` (default 1), as a view with stride 0 (no copy). With ndim, an input of more than ndim
-- dimensions is a batch and dim counts after the first. The gradient sums over the copies.

local Replicate, parent = torch.class('nn.Replicate', 'nn.Module')

function Replicate:__init(nf, dim, ndim)
   parent.__init(self)
   self.nfeatures = nf
   self.dim = dim or 1
   self.ndim = ndim
   assert(self.dim > 0, 'nn.Replicate: the dimension must be positive')
end

-- Where the new dimension goes in `input`'s result.
local function replicatedDim(self, input)
   local dim = self.dim or 1
   assert(dim <= input:dim() + 1, 'nn.Replicate: not enough input dimensions to replicate along dimension ' .. dim)
   local batchOffset = (self.ndim and input:dim() > self.ndim) and 1 or 0
   return dim + batchOffset
end

-- input's sizes and strides with `size`/`stride` inserted at position rdim.
local function insertDim(input, rdim, size, stride)
   local sz, st = {}, {}
   for d = 1, input:dim() do
      sz[#sz + 1], st[#st + 1] = input:size(d), input:stride(d)
   end
   table.insert(sz, rdim, size)
   table.insert(st, rdim, stride)
   return torch.LongStorage(sz), torch.LongStorage(st)
end

function Replicate:updateOutput(input)
   local rdim = replicatedDim(self, input)
   local sz, st = insertDim(input, rdim, self.nfeatures, 0)
   self.output:set(input:storage(), input:storageOffset(), sz, st)
   return self.output
end

function Replicate:updateGradInput(input, gradOutput)
   local rdim = replicatedDim(self, input)
   self.gradInput:resizeAs(input)
   local sz = insertDim(input, rdim, 1, 1)
   self.gradInput:view(sz):sum(gradOutput, rdim)
   return self.gradInput
end

return Replicate
