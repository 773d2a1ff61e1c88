-- nn.DepthConcat(dim): as nn.Concat, for outputs whose other dimensions differ (the branches of an
-- Inception block): the output takes the largest size in each other dimension and each module's
-- output sits centred in it, zero-padded around.

require 'nn.Concat'
local DepthConcat, _ = torch.class('nn.DepthConcat', 'nn.Concat')

-- The part of `output` where a module output of currentOutput's size sits, starting at `offset`
-- along the concatenated dimension.
function DepthConcat:windowNarrow(output, currentOutput, offset)
   local window = output:narrow(self.dimension, offset, currentOutput:size(self.dimension))
   for dim = 1, self.outputSize:size(1) do
      local size = currentOutput:size(dim)
      if dim ~= self.dimension and self.outputSize[dim] ~= size then
         -- centred: (9 - 4) / 2 leaves 2 before and 3 after
         local start = math.floor((self.outputSize[dim] - size) / 2 + 1)
         window = window:narrow(dim, start, size)
      end
   end
   return window
end

function DepthConcat:updateOutput(input)
   self.outputSize = self.outputSize or torch.LongStorage()
   local outs = {}
   for i = 1, #self.modules do
      local out = self:rethrowErrors(self.modules[i], i, 'updateOutput', input)
      outs[i] = out
      if i == 1 then
         self.outputSize:resize(out:dim()):copy(out:size())
      else
         self.outputSize[self.dimension] = self.outputSize[self.dimension] + out:size(self.dimension)
         for dim = 1, self.outputSize:size(1) do
            if dim ~= self.dimension then
               self.outputSize[dim] = math.max(self.outputSize[dim], out:size(dim))
            end
         end
      end
   end
   self.output:resize(self.outputSize):zero()
   local offset = 1
   for i = 1, #self.modules do
      self:windowNarrow(self.output, outs[i], offset):copy(outs[i])
      offset = offset + outs[i]:size(self.dimension)
   end
   return self.output
end

-- Calls `method` of each module with its window of gradOutput; the returned gradients are summed
-- into gradInput when `sum` is set.
local function eachModule(self, method, input, gradOutput, arg, sum)
   if sum then self.gradInput:resizeAs(input) end
   local offset = 1
   for i, module in ipairs(self.modules) do
      local out = module.output
      local window = self:windowNarrow(gradOutput, out, offset)
      local g = self:rethrowErrors(module, i, method, input, window, arg)
      if sum then
         if i == 1 then self.gradInput:copy(g) else self.gradInput:add(g) end
      end
      offset = offset + out:size(self.dimension)
   end
   return self.gradInput
end

function DepthConcat:updateGradInput(input, gradOutput)
   return eachModule(self, 'updateGradInput', input, gradOutput, nil, true)
end

function DepthConcat:accGradParameters(input, gradOutput, scale)
   eachModule(self, 'accGradParameters', input, gradOutput, scale or 1, false)
end

function DepthConcat:backward(input, gradOutput, scale)
   return eachModule(self, 'backward', input, gradOutput, scale or 1, true)
end

function DepthConcat:accUpdateGradParameters(input, gradOutput, lr)
   eachModule(self, 'accUpdateGradParameters', input, gradOutput, lr, false)
end

return DepthConcat
