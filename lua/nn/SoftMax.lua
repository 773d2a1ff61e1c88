-- nn.SoftMax: exp(x_i) / sum_j exp(x_j) over the feature dimension: the only one of a vector,
-- the second of a batch (N x C), the first of C x H x W maps, the second of N x C x H x W.

local kernels = require 'nn.engine.kernels'

local SoftMax, _ = torch.class('nn.SoftMax', 'nn.Module')

-- The dimension the softmax runs along, for an input of `nDim` dimensions.
function nn.softmaxDim(nDim, name)
   if nDim == 1 or nDim == 3 then return 1 end
   if nDim == 2 or nDim == 4 then return 2 end
   error(name .. ': input must have 1 to 4 dimensions (got ' .. nDim .. ')')
end

function SoftMax:updateOutput(input)
   local d = nn.softmaxDim(input:dim(), 'nn.SoftMax')
   local fused = kernels.fused('softMax', input, self.output)
   if fused then
      -- One pass in Rust (kernels::nn_norm) over a contiguous copy.
      local x = input:contiguous()
      self.output:resizeAs(x)
      fused(self.output, x, d)
      return self.output
   end
   local max = torch.max(input, d)
   self.output:resizeAs(input):copy(input):add(-1, max:expandAs(input)):exp()
   local sum = self.output:sum(d)
   self.output:cdiv(sum:expandAs(input))
   return self.output
end

-- gradInput = y * (gradOutput - sum(gradOutput * y))
function SoftMax:updateGradInput(input, gradOutput)
   local d = nn.softmaxDim(input:dim(), 'nn.SoftMax')
   local fused = kernels.fused('softMaxBackward', self.output, gradOutput, self.gradInput)
   if fused and self.output:isContiguous() and gradOutput:isSameSizeAs(self.output) then
      self.gradInput:resizeAs(self.output)
      fused(self.gradInput, gradOutput:contiguous(), self.output, d)
      return self.gradInput
   end
   local dot = torch.cmul(gradOutput, self.output):sum(d)
   self.gradInput:resizeAs(gradOutput):copy(gradOutput):add(-1, dot:expandAs(gradOutput)):cmul(self.output)
   return self.gradInput
end

return SoftMax
