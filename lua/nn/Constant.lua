-- nn.Constant(value[, nInputDim]): outputs `value` (a number or a tensor) whatever the input; with
-- nInputDim, an input of more dimensions is a batch and the value is repeated per sample. The
-- gradient of the input is zero.

local Constant, parent = torch.class('nn.Constant', 'nn.Module')

function Constant:__init(value, nInputDim)
   self.value = value
   if torch.type(self.value) == 'number' then
      self.value = torch.Tensor { self.value }
   end
   assert(torch.isTensor(self.value), 'nn.Constant: a number or a tensor is expected')
   self.nInputDim = nInputDim
   parent.__init(self)
end

function Constant:updateOutput(input)
   if self.nInputDim and input:dim() > self.nInputDim then
      local sizes = self.value:size():totable()
      table.insert(sizes, 1, input:size(1))
      local one = { 1 }
      for _, s in ipairs(self.value:size():totable()) do one[#one + 1] = s end
      self.output:resize(torch.LongStorage(sizes))
      self.output:copy(self.value:view(torch.LongStorage(one)):expand(self.output:size()))
   else
      self.output:resize(self.value:size()):copy(self.value)
   end
   return self.output
end

function Constant:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input):zero()
   return self.gradInput
end

return Constant
