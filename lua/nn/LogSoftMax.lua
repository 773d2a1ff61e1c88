-- nn.LogSoftMax: x_i - log(sum_j exp(x_j)), along the dimension nn.SoftMax uses, computed with
-- the maximum taken out so that large inputs do not overflow.

local kernels = require 'nn.engine.kernels'

local LogSoftMax = torch.class('nn.LogSoftMax', 'nn.Module')

function LogSoftMax:updateOutput(input)
   local d = nn.softmaxDim(input:dim(), 'nn.LogSoftMax')
   local fused = kernels.fused('logSoftMax', input, self.output)
   if fused then
      -- One pass in Rust (kernels::nn_norm) over a contiguous copy.
      local x = input:contiguous()
      self.output:resizeAs(x)
      fused(self.output, x, d)
      return self.output
   end
   local max = torch.max(input, d)
   local shifted = input.new():resizeAs(input):copy(input):add(-1, max:expandAs(input))
   local logsum = torch.exp(shifted):sum(d):log()
   self.output:resizeAs(input):copy(shifted):add(-1, logsum:expandAs(input))
   return self.output
end

-- gradInput = gradOutput - exp(y) * sum(gradOutput)
function LogSoftMax:updateGradInput(input, gradOutput)
   local d = nn.softmaxDim(input:dim(), 'nn.LogSoftMax')
   local fused = kernels.fused('logSoftMaxBackward', self.output, gradOutput, self.gradInput)
   if fused and self.output:isContiguous() and gradOutput:isSameSizeAs(self.output) then
      self.gradInput:resizeAs(self.output)
      fused(self.gradInput, gradOutput:contiguous(), self.output, d)
      return self.gradInput
   end
   local sum = gradOutput:sum(d)
   self.gradInput:resizeAs(self.output):exp(self.output):cmul(sum:expandAs(gradOutput)):mul(-1):add(gradOutput)
   return self.gradInput
end

return LogSoftMax
