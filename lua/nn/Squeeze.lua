-- nn.Squeeze([dim, numInputDims]): the input without its dimensions of size 1 (only `dim` when
-- given). With numInputDims, an input of numInputDims + 1 dimensions is a batch: dim moves by
-- one, and a batch of one sample keeps its batch dimension.

local Squeeze, parent = torch.class('nn.Squeeze', 'nn.Module')

function Squeeze:__init(dim, numInputDims)
   parent.__init(self)
   self.dim = dim
   self:setNumInputDims(numInputDims)
end

function Squeeze:setNumInputDims(numInputDims)
   self.numInputDims = numInputDims
   return self
end

-- A view of `t` with the dimensions listed in `drop` (a set) removed.
local function dropDims(t, drop)
   local sizes, strides = {}, {}
   for d = 1, t:dim() do
      if not drop[d] then
         sizes[#sizes + 1] = t:size(d)
         strides[#strides + 1] = t:stride(d)
      end
   end
   if #sizes == 0 then
      -- a single element stays a 1-D tensor of one element
      sizes[1], strides[1] = 1, 1
   end
   return t.new():set(t:storage(), t:storageOffset(), torch.LongStorage(sizes), torch.LongStorage(strides))
end

function Squeeze:updateOutput(input)
   assert(torch.isTensor(input), 'nn.Squeeze: the input must be a tensor')
   local dim = self.dim
   local keepBatch = false
   if self.numInputDims and input:dim() == self.numInputDims + 1 then
      if dim then
         dim = dim + 1
      elseif input:size(1) == 1 then
         keepBatch = true
      end
   end
   local drop = {}
   if dim then
      if input:size(dim) == 1 then drop[dim] = true end
   else
      for d = 1, input:dim() do
         if input:size(d) == 1 and not (keepBatch and d == 1) then drop[d] = true end
      end
   end
   self.output:set(dropDims(input, drop))
   return self.output
end

function Squeeze:updateGradInput(input, gradOutput)
   assert(torch.isTensor(input) and torch.isTensor(gradOutput), 'nn.Squeeze: tensors expected')
   assert(input:nElement() == gradOutput:nElement(), 'nn.Squeeze: gradOutput does not match the input')
   self.gradInput:set(gradOutput:contiguous():view(input:size()))
   return self.gradInput
end

return Squeeze
