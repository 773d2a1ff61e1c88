-- nn.OneHot(outputSize): class indices (a number, or a tensor of any shape holding 1..outputSize)
-- to one-hot vectors: the output has the input's shape plus a last dimension of outputSize, with
-- a 1 at each index. Indices get no gradient (zeros).

local OneHot, parent = torch.class('nn.OneHot', 'nn.Module')

function OneHot:__init(outputSize)
   parent.__init(self)
   self.outputSize = outputSize
end

function OneHot:updateOutput(input)
   local sizes
   if type(input) == 'number' then
      self._single = self._single or torch.LongTensor(1)
      self._single[1] = input
      input = self._single
      sizes = {}
   else
      sizes = input:size():totable()
   end
   sizes[#sizes + 1] = self.outputSize
   self.output:resize(torch.LongStorage(sizes)):zero()
   sizes[#sizes] = 1
   local index = input
   if torch.type(input) ~= 'torch.LongTensor' then
      self._input = self._input or torch.LongTensor()
      self._input:resize(input:size()):copy(input)
      index = self._input
   end
   self.output:scatter(self.output:dim(), index:contiguous():view(torch.LongStorage(sizes)), 1)
   return self.output
end

function OneHot:updateGradInput(input, gradOutput)
   if type(input) == 'number' then
      return 0
   end
   self.gradInput:resize(input:size()):zero()
   return self.gradInput
end

function OneHot:clearState()
   self._single = nil
   self._input = nil
   return parent.clearState(self)
end

function OneHot:type(type, tensorCache)
   self:clearState()
   return parent.type(self, type, tensorCache)
end

return OneHot
