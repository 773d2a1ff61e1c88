-- nn.Concat(dim): every module gets the same input; their outputs are joined along `dim`.

local Concat, parent = torch.class('nn.Concat', 'nn.Container')

function Concat:__init(dimension)
   parent.__init(self)
   self.outputSize = torch.LongStorage()
   self.dimension = dimension
end

function Concat:updateOutput(input)
   self.outputSize = self.outputSize or torch.LongStorage()
   local outs = {}
   for i = 1, #self.modules do
      local currentOutput = self:rethrowErrors(self.modules[i], i, 'updateOutput', input)
      outs[i] = currentOutput
      if i == 1 then
         self.outputSize:resize(currentOutput:dim()):copy(currentOutput:size())
      else
         self.outputSize[self.dimension] = self.outputSize[self.dimension] + currentOutput:size(self.dimension)
      end
   end
   self.output:resize(self.outputSize)
   local offset = 1
   for i = 1, #self.modules do
      local currentOutput = outs[i]
      self.output:narrow(self.dimension, offset, currentOutput:size(self.dimension)):copy(currentOutput)
      offset = offset + currentOutput:size(self.dimension)
   end
   return self.output
end

-- The part of gradOutput that belongs to module i, with the offset after it.
local function slice(self, gradOutput, i, offset)
   local size = self.modules[i].output:size(self.dimension)
   return gradOutput:narrow(self.dimension, offset, size), offset + size
end

function Concat:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input)
   local offset = 1
   for i, module in ipairs(self.modules) do
      local part
      part, offset = slice(self, gradOutput, i, offset)
      local currentGradInput = self:rethrowErrors(module, i, 'updateGradInput', input, part)
      if currentGradInput then -- a module may give no gradInput (it ignores its input)
         if i == 1 then
            self.gradInput:copy(currentGradInput)
         else
            self.gradInput:add(currentGradInput)
         end
      end
   end
   return self.gradInput
end

function Concat:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local offset = 1
   for i, module in ipairs(self.modules) do
      local part
      part, offset = slice(self, gradOutput, i, offset)
      self:rethrowErrors(module, i, 'accGradParameters', input, part, scale)
   end
end

function Concat:backward(input, gradOutput, scale)
   self.gradInput:resizeAs(input)
   scale = scale or 1
   local offset = 1
   for i, module in ipairs(self.modules) do
      local part
      part, offset = slice(self, gradOutput, i, offset)
      local currentGradInput = self:rethrowErrors(module, i, 'backward', input, part, scale)
      if currentGradInput then
         if i == 1 then
            self.gradInput:copy(currentGradInput)
         else
            self.gradInput:add(currentGradInput)
         end
      end
   end
   return self.gradInput
end

function Concat:accUpdateGradParameters(input, gradOutput, lr)
   local offset = 1
   for i, module in ipairs(self.modules) do
      local part
      part, offset = slice(self, gradOutput, i, offset)
      self:rethrowErrors(module, i, 'accUpdateGradParameters', input, part, lr)
   end
end

Concat.__tostring__ = nn.branchesToString

return Concat
