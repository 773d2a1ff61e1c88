-- nn.MaskedSelect: input {t, mask} (mask a ByteTensor of t's size); the output is the 1-D tensor of
-- t's elements where mask is 1, in order. The gradient goes back to those places (zero elsewhere);
-- the mask gets a zero gradient.

local MaskedSelect, parent = torch.class('nn.MaskedSelect', 'nn.Module')

function MaskedSelect:__init()
   parent.__init(self)
   self._maskIndices = torch.LongTensor()
   self._maskIndexBuffer = torch.LongTensor()
   self._maskIndexBufferCPU = torch.FloatTensor()
   self._gradBuffer = torch.Tensor()
   self._gradMask = torch.ByteTensor()
end

function MaskedSelect:updateOutput(input)
   local t, mask = input[1], input[2]
   self.output = t:maskedSelect(mask)
   return self.output
end

function MaskedSelect:updateGradInput(input, gradOutput)
   local t, mask = input[1], input[2]
   self._gradBuffer = self._gradBuffer:typeAs(t)
   self._gradBuffer:resizeAs(t):zero():maskedCopy(mask, gradOutput)
   self.gradInput = { self._gradBuffer, self._gradMask:resize(mask:size()):fill(0) }
   return self.gradInput
end

function MaskedSelect:type(type, tensorCache)
   if not type then return self._type end
   self._gradBuffer = self._gradBuffer:type(type)
   self.output = self.output:type(type)
   if torch.isTensor(self.gradInput) then self.gradInput = self.gradInput:type(type) end
   self._type = type
   return self
end

function MaskedSelect:clearState()
   return nn.utils.clear(self, { 'output', 'gradInput', '_maskIndexBuffer', '_maskIndexBufferCPU', '_maskIndices',
      '_gradBuffer', '_gradMask' })
end

return MaskedSelect
