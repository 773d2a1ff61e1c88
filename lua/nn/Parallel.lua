-- nn.Parallel(inputDimension, outputDimension): module i gets slice i of the input along
-- inputDimension (input:select); their outputs are joined along outputDimension.

local Parallel, parent = torch.class('nn.Parallel', 'nn.Container')

function Parallel:__init(inputDimension, outputDimension)
   parent.__init(self)
   self.modules = {}
   self.inputDimension = inputDimension
   self.outputDimension = outputDimension
end

function Parallel:updateOutput(input)
   local nModule = input:size(self.inputDimension)
   local outputs = {}
   self.totalOutputSize = self.totalOutputSize or torch.LongStorage()
   local total = self.totalOutputSize
   for i = 1, nModule do
      local out = self:rethrowErrors(self.modules[i], i, 'updateOutput', input:select(self.inputDimension, i))
      outputs[i] = out
      if i == 1 then
         total:resize(out:dim()):copy(out:size())
      else
         total[self.outputDimension] = total[self.outputDimension] + out:size(self.outputDimension)
      end
   end
   self.output:resize(total)
   local offset = 1
   for i = 1, nModule do
      local n = outputs[i]:size(self.outputDimension)
      self.output:narrow(self.outputDimension, offset, n):copy(outputs[i])
      offset = offset + n
   end
   return self.output
end

-- Calls `method` of each module with its input slice and its part of gradOutput; `each(i, r)`
-- receives what the call returned.
local function eachModule(self, method, input, gradOutput, arg, each)
   local offset = 1
   for i = 1, input:size(self.inputDimension) do
      local module = self.modules[i]
      local n = module.output:size(self.outputDimension)
      local r = self:rethrowErrors(module, i, method, input:select(self.inputDimension, i),
         gradOutput:narrow(self.outputDimension, offset, n), arg)
      if each then each(i, r) end
      offset = offset + n
   end
end

function Parallel:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input)
   eachModule(self, 'updateGradInput', input, gradOutput, nil, function(i, g)
      self.gradInput:select(self.inputDimension, i):copy(g)
   end)
   return self.gradInput
end

function Parallel:accGradParameters(input, gradOutput, scale)
   eachModule(self, 'accGradParameters', input, gradOutput, scale or 1)
end

function Parallel:accUpdateGradParameters(input, gradOutput, lr)
   eachModule(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

Parallel.__tostring__ = nn.branchesToString

return Parallel
