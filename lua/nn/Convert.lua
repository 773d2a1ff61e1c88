-- nn.Convert([inputShape, outputShape]): converts between tensor layouts named by strings of axis
-- letters: b the batch, then e.g. c (channels), h, w, t (time), f (features), '*' any. 'bchw' to
-- 'chwb' is a transposition (nn.Transpose), 'bchw' to 'bf' flattens each sample (nn.Reshape),
-- 'bt'/'bf' to 'b' selects (nn.Select). A shape without b gets it in front; an input with fewer
-- dimensions than the shape is one sample (the batch dimension is added and removed around the
-- conversion). The input is first converted to the module's tensor type.

local Convert, parent = torch.class('nn.Convert', 'nn.Container')

function Convert:__init(inputShape, outputShape)
   if outputShape and not inputShape then
      error('nn.Convert: the input shape is expected when an output shape is given')
   end
   inputShape = inputShape or 'b*'
   outputShape = outputShape or inputShape
   self.inputShape = inputShape:find('b') and inputShape or ('b' .. inputShape)
   self.outputShape = outputShape:find('b') and outputShape or ('b' .. outputShape)
   self.inputBatchDim = self.inputShape:find('b')
   self.outputBatchDim = self.outputShape:find('b')
   if self.inputShape == 'b*' or self.outputShape == 'b*' then
      assert(self.inputShape == 'b*' and self.outputShape == 'b*', 'nn.Convert: both or neither shapes must be b*')
      self.nInputDim = -1
      self.nOutputDim = -1
      self.transposition = true
   else
      self.nInputDim = #self.inputShape
      self.nOutputDim = #self.outputShape
      if self.nInputDim == self.nOutputDim then
         -- the same letters in another order
         self.transposition = true
         for i = 1, self.nInputDim do
            if not self.outputShape:find(self.inputShape:sub(i, i), 1, true) then
               self.transposition = false
               break
            end
         end
      end
   end
   parent.__init(self)
end

-- The module that does the conversion, made on the first input.
function Convert:buildConverter(input)
   if self.transposition then
      self.converter = self:transpose(self.outputShape)
   else
      if torch.type(self[self.outputShape]) ~= 'function' then
         error(string.format('nn.Convert: unrecognised conversion of shape %s to %s', self.inputShape,
            self.outputShape))
      end
      self.converter = self[self.outputShape](self, input)
   end
   assert(torch.isTensor(self.output), 'nn.Convert: a tensor output is expected')
   self.converter:type(torch.type(self.output))
   self.modules[1] = self.converter
end

function Convert:updateOutput(input)
   assert(torch.isTensor(input), 'nn.Convert: a tensor input is expected')
   if not torch.isTypeOf(input, torch.type(self.output)) then
      self._input = self._input or self.output.new()
      self._input:resize(input:size()):copy(input)
      input = self._input
   end
   self.batchMode = true
   if input:dim() < self.nInputDim then
      -- one sample: add the batch dimension
      -- A view with the batch dimension added (strides kept: the input may be a transposed view).
      self.__input = nn.utils.addSingletonDimension(self.__input or input.new(), input, self.inputBatchDim)
      input = self.__input
      self.batchMode = false
   end
   if not self.converter then
      self:buildConverter(input)
   end
   self.output = self.converter:updateOutput(input)
   if not self.batchMode then
      self.__output = self.__output or self.output.new()
      self.__output:set(self.output:select(self.outputBatchDim, 1))
      self.output = self.__output
   end
   return self.output
end

function Convert:updateGradInput(input, gradOutput)
   input = self._input or input
   if not self.batchMode then
      input = self.__input
      self.__gradOutput = nn.utils.addSingletonDimension(self.__gradOutput or gradOutput.new(), gradOutput,
         self.outputBatchDim)
      gradOutput = self.__gradOutput
   end
   local gradInput = self.converter:updateGradInput(input, gradOutput)
   if not self.batchMode then
      self.__gradInput = self.__gradInput or gradInput.new()
      self.__gradInput:set(gradInput:select(self.inputBatchDim, 1))
      gradInput = self.__gradInput
   end
   if self._input then
      self._gradInput = self._gradInput or input.new()
      self._gradInput:resize(input:size()):copy(gradInput)
      self.gradInput = self._gradInput
   else
      self.gradInput = gradInput
   end
   return self.gradInput
end

function Convert:accGradParameters(input, gradOutput, scale)
   input = self.batchMode and self.__input or self._input or input
   gradOutput = self.batchMode and self.__gradOutput or gradOutput
   self.converter:accGradParameters(input, gradOutput, scale)
end

function Convert:accUpdateGradParameters(input, gradOutput, lr)
   input = self.batchMode and self.__input or self._input or input
   gradOutput = self.batchMode and self.__gradOutput or gradOutput
   self.converter:accUpdateGradParameters(input, gradOutput, lr)
end

-- Converters to the named output shapes ------------------------------------------------------------

-- batch x features: the other axes flattened (after moving b first).
function Convert:bf(input)
   local b_pos = self:findAxis('b', self.inputShape)
   local dim = #self.inputShape
   if self.inputShape == 'bt' then
      error('nn.Convert: conversion of shape bt to bf is not supported')
   end
   if dim == 1 then
      return nn.Reshape(1)
   end
   local module
   if b_pos ~= 1 then
      module = nn.Transpose({ 1, b_pos })
   end
   if dim > 2 then
      local reshape = nn.Reshape(input:select(self:findAxis('b'), 1):nElement())
      if module then
         module = nn.Sequential():add(module):add(reshape)
      else
         module = reshape
      end
   end
   return module or nn.Identity()
end

-- batch only: the single time step or feature selected.
function Convert:b(input)
   if self.inputShape == 'bt' or self.inputShape == 'tb' then
      return nn.Select(self:findAxis('t'), 1)
   elseif self.inputShape == 'bf' or self.inputShape == 'fb' then
      local f_pos = self:findAxis('f')
      if input:size(f_pos) > 1 then
         error('nn.Convert: cannot convert shape ' .. self.inputShape .. ' to b when there is more than one feature')
      end
      return nn.Select(f_pos, 1)
   end
   error('nn.Convert: cannot convert shape ' .. self.inputShape .. ' to shape b')
end

function Convert:default()
   return nn.Identity()
end

function Convert:bt()
   if self.inputShape == 'b' then
      return nn.Reshape(1)
   end
   error('nn.Convert: cannot convert shape \'' .. self.inputShape .. '\' to bt')
end

-- The swaps (as nn.Transpose pairs) that turn the input shape into `newShape`.
function Convert:transpose(newShape)
   if newShape == self.inputShape then
      return nn.Identity()
   end
   local axes = {}
   for i = 1, #self.inputShape do axes[i] = self.inputShape:sub(i, i) end
   local swaps = {}
   for i = 1, #newShape do
      local wanted = newShape:sub(i, i)
      local j
      for k, a in ipairs(axes) do
         if a == wanted then j = k break end
      end
      if i ~= j then
         axes[i], axes[j] = axes[j], axes[i]
         swaps[#swaps + 1] = { j, i }
      end
   end
   return nn.Transpose(unpack(swaps))
end

-- Where `axis` is in `shape` (the input shape by default); an error when absent unless silent.
function Convert:findAxis(axis, shape, silent)
   shape = shape or self.inputShape
   local pos = shape:find(axis, 1, true)
   if not silent and not pos then
      error('nn.Convert: the shape \'' .. shape .. '\' has no axis \'' .. axis .. '\'', 2)
   end
   return pos
end

function Convert:clearState()
   self._input = nil
   self._gradInput = nil
   self.__input = nil
   self.__output = nil
   self.__gradInput = nil
   self.__gradOutput = nil
   return self
end

function Convert:type(type)
   self:clearState()
   return parent.type(self, type)
end

return Convert
