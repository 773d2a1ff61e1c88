-- nn.Bottle(module[, nInputDim, nOutputDim]): applies a module made for inputs of nInputDim
-- dimensions (default 2) to inputs with more: the leading dimensions are folded into the first
-- one, the module runs once, and its output (of nOutputDim dimensions, default nInputDim) is
-- unfolded again.

require 'nn.Decorator'
local Bottle, parent = torch.class('nn.Bottle', 'nn.Decorator')

function Bottle:__init(module, nInputDim, nOutputDim)
   parent.__init(self, module)
   self.nInputDim = nInputDim or 2
   self.nOutputDim = nOutputDim or self.nInputDim
   self.dimDelta = self.nInputDim - self.nOutputDim
   -- the folded shapes of the last input and output (kept for the backward pass)
   self.inShape = torch.Tensor(self.nInputDim)
   self.outShape = torch.Tensor(self.nOutputDim)
end

local function sizes(t)
   return torch.LongStorage(t:totable())
end

function Bottle:updateOutput(input)
   local batchDims = input:dim() - self.nInputDim + 1
   if batchDims <= 1 then
      self.output:set(self.modules[1]:updateOutput(input))
      return self.output
   end
   -- fold dimensions 1..batchDims into one
   local folded = 1
   for d = 1, batchDims do folded = folded * input:size(d) end
   for d = batchDims, input:dim() do self.inShape[d - batchDims + 1] = input:size(d) end
   self.inShape[1] = folded
   local output = self.modules[1]:updateOutput(input:contiguous():view(sizes(self.inShape)))
   assert(output:dim() == self.nOutputDim, string.format(
      'nn.Bottle: wrong number of output dimensions from the module: expected %d but got %d', self.nOutputDim,
      output:dim()))
   self.outShape:copy(torch.Tensor(output:size():totable()))
   -- unfold: the leading dimensions back, then the module's output dimensions after the first
   local outSizes = {}
   for d = 1, batchDims do outSizes[d] = input:size(d) end
   for d = 2, output:dim() do outSizes[#outSizes + 1] = output:size(d) end
   self.output:set(output:contiguous():view(torch.LongStorage(outSizes)))
   return self.output
end

function Bottle:updateGradInput(input, gradOutput)
   local module = self.modules[1]
   if input:dim() > self.nInputDim then
      module:updateGradInput(input:contiguous():view(sizes(self.inShape)),
         gradOutput:contiguous():view(sizes(self.outShape)))
      if not module.gradInput then
         self.gradInput = nil
      else
         self.gradInput:set(module.gradInput:contiguous():viewAs(input))
      end
   else
      if not module.gradInput then
         self.gradInput = nil
      else
         self.gradInput:set(module:updateGradInput(input, gradOutput))
      end
   end
   return self.gradInput
end

function Bottle:accGradParameters(input, gradOutput, scale)
   if input:dim() > self.nInputDim then
      input = input:contiguous():view(sizes(self.inShape))
      gradOutput = gradOutput:contiguous():view(sizes(self.outShape))
   end
   self.modules[1]:accGradParameters(input, gradOutput, scale)
end

return Bottle
