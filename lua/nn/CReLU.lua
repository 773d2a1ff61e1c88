-- nn.CReLU(nInputDims[, inplace]): concatenated ReLU (Shang et al., "Understanding and Improving
-- Convolutional Neural Networks via Concatenated Rectified Linear Units"): [relu(x), relu(-x)]
-- joined along the feature dimension (the first of a sample of nInputDims dimensions, the second
-- of a batch), so the output has twice the input's features.
--
-- The original builds this as a Sequential of ConcatTable(Identity, MulConstant(-1)),
-- JoinTable(2) and ReLU; the children are made the same way when those classes are loaded, so
-- that saved models read in either Torch, but the computation is done here directly.

require 'nn.Sequential'
local CReLU, parent = torch.class('nn.CReLU', 'nn.Sequential')

function CReLU:__init(nInputDims, inplace)
   parent.__init(self)
   self.nInputDims = nInputDims
   self.inplace = inplace or false
   if nn.JoinTable and nn.MulConstant then
      local branches = nn.ConcatTable()
      branches:add(nn.Identity())
      branches:add(nn.MulConstant(-1))
      self:add(branches)
      self:add(nn.JoinTable(2))
      self:add(nn.ReLU(self.inplace))
   end
end

-- The input as rows of features (B x F), and whether it was a batch.
local function rows(self, input)
   local batched = input:dim() == self.nInputDims + 1
   local x = input:contiguous()
   if batched then
      return x:view(input:size(1), -1), true
   end
   return x:view(1, -1), false
end

function CReLU:updateOutput(input)
   local x, batched = rows(self, input)
   local B, F = x:size(1), x:size(2)
   self.output = torch.isTensor(self.output) and self.output or input.new()
   self.output:resize(B, 2 * F)
   self.output:narrow(2, 1, F):copy(x):clamp(0, math.huge)
   self.output:narrow(2, F + 1, F):copy(x):mul(-1):clamp(0, math.huge)
   local size = input:size()
   local featureDim = batched and 2 or 1
   size[featureDim] = size[featureDim] * 2
   self.output = self.output:view(size)
   return self.output
end

-- d/dx relu(x) = [x > 0], d/dx relu(-x) = -[x < 0].
function CReLU:updateGradInput(input, gradOutput)
   local x = rows(self, input)
   local B, F = x:size(1), x:size(2)
   local g = gradOutput:contiguous():view(B, 2 * F)
   local gi = x.new():resizeAs(x):copy(g:narrow(2, 1, F)):maskedFill(x:le(0), 0)
   gi:add(-1, g:narrow(2, F + 1, F):clone():maskedFill(x:ge(0), 0))
   self.gradInput = torch.isTensor(self.gradInput) and self.gradInput or input.new()
   self.gradInput:resizeAs(input):copy(gi:viewAs(input))
   return self.gradInput
end

function CReLU:accGradParameters(input, gradOutput, scale)
end

function CReLU:accUpdateGradParameters(input, gradOutput, lr)
end

function CReLU:backward(input, gradOutput, scale)
   return self:updateGradInput(input, gradOutput)
end

function CReLU:__tostring__()
   return 'CReLU()'
end

return CReLU
