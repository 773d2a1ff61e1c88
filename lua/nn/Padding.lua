-- nn.Padding(dim, pad[, nInputDim, value, index]): adds |pad| entries of `value` (default 0) along
-- dimension dim. With pad < 0 they go before position `index` (default 1: at the start); with
-- pad > 0 `index` counts from the end (1: after the last entry). With nInputDim, an input with
-- another number of dimensions is a batch and dim moves by one.

local Padding, parent = torch.class('nn.Padding', 'nn.Module')

function Padding:__init(dim, pad, nInputDim, value, index)
   self.value = value or 0
   self.index = index or 1
   self.dim = dim
   self.pad = pad
   self.nInputDim = nInputDim
   self.outputSize = torch.LongStorage()
   parent.__init(self)
end

-- The padded dimension, the number of entries added, and the input position before which they go
-- (size + 1: after the end).
local function layout(self, input)
   local dim = self.dim
   if self.nInputDim and input:dim() ~= self.nInputDim then dim = dim + 1 end
   local pad, at = self.pad, self.index
   if pad > 0 then
      at = input:size(dim) - self.index + 2
   else
      pad = -pad
   end
   return dim, pad, at
end

function Padding:updateOutput(input)
   local dim, pad, at = layout(self, input)
   local n = input:size(dim)
   self.outputSize:resize(input:dim()):copy(input:size())
   self.outputSize[dim] = n + pad
   self.output:resize(self.outputSize):fill(self.value)
   if at > 1 then
      self.output:narrow(dim, 1, at - 1):copy(input:narrow(dim, 1, at - 1))
   end
   if at <= n then
      self.output:narrow(dim, at + pad, n - at + 1):copy(input:narrow(dim, at, n - at + 1))
   end
   return self.output
end

function Padding:updateGradInput(input, gradOutput)
   local dim, pad, at = layout(self, input)
   local n = input:size(dim)
   self.gradInput:resizeAs(input)
   if at > 1 then
      self.gradInput:narrow(dim, 1, at - 1):copy(gradOutput:narrow(dim, 1, at - 1))
   end
   if at <= n then
      self.gradInput:narrow(dim, at, n - at + 1):copy(gradOutput:narrow(dim, at + pad, n - at + 1))
   end
   return self.gradInput
end

return Padding
