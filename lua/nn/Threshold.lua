-- nn.Threshold(th, v[, ip]): y = x where x > th, else v. In place (ip) it overwrites its input
-- and its gradOutput.

local kernels = require 'nn.engine.kernels'

local Threshold, parent = torch.class('nn.Threshold', 'nn.Module')

function Threshold:__init(th, v, ip)
   parent.__init(self)
   self.threshold = th or 1e-6
   self.val = v or 0
   if th and type(th) ~= 'number' then
      error('nn.Threshold(threshold, value): threshold must be a number')
   end
   if v and type(v) ~= 'number' then
      error('nn.Threshold(threshold, value): value must be a number')
   end
   self.inplace = ip or false
   self:validateParameters()
end

function Threshold:validateParameters()
   self.inplace = self.inplace or false
   if self.inplace and self.val > self.threshold then
      error('nn.Threshold: in-place processing requires value (' .. self.val .. ') not exceed threshold ('
         .. self.threshold .. ')')
   end
end

function Threshold:updateOutput(input)
   self:validateParameters()
   if kernels.has(input, 'threshold') and input:isContiguous() then
      if self.inplace then
         self.output:set(input)
      else
         self.output:resizeAs(input)
      end
      kernels.of(input).threshold(self.output, input, self.threshold, self.val)
      return self.output
   end
   local below = input:le(self.threshold)
   if self.inplace then
      input:maskedFill(below, self.val)
      self.output:set(input)
   else
      self.output:resizeAs(input):copy(input)
      self.output:maskedFill(below, self.val)
   end
   return self.output
end

function Threshold:updateGradInput(input, gradOutput)
   self:validateParameters()
   if kernels.has(input, 'threshold') and input:isContiguous() and gradOutput:isContiguous()
      and gradOutput:type() == input:type() and gradOutput:nElement() == input:nElement() then
      if self.inplace then
         self.gradInput:set(gradOutput)
      else
         self.gradInput:resizeAs(gradOutput)
      end
      kernels.of(input).thresholdBackward(self.gradInput, input, gradOutput, self.threshold)
      return self.gradInput
   end
   -- In place the input holds the output, which is at or below the threshold exactly where the
   -- input was (val <= threshold is checked).
   local below = input:le(self.threshold)
   if self.inplace then
      gradOutput:maskedFill(below, 0)
      self.gradInput:set(gradOutput)
   else
      self.gradInput:resizeAs(gradOutput):copy(gradOutput)
      self.gradInput:maskedFill(below, 0)
   end
   return self.gradInput
end

return Threshold
