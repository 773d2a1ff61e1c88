-- nn.Reshape(sizes[, batchMode]): the input reshaped (copied when it is not contiguous). The
-- first dimension is a batch when the input has more elements than the sizes hold, or always
-- (batchMode true), or never (batchMode false).

local Reshape, parent = torch.class('nn.Reshape', 'nn.Module')

function Reshape:__init(...)
   parent.__init(self)
   local args = { ... }
   local n = select('#', ...)
   if n > 0 and type(args[n]) == 'boolean' then
      self.batchMode = args[n]
      table.remove(args, n)
   end
   if #args == 1 and torch.typename(args[1]) == 'torch.LongStorage' then
      self.size = args[1]
   else
      self.size = torch.LongStorage(#args)
      for i, s in ipairs(args) do self.size[i] = s end
   end
   self.nelement = 1
   self.batchsize = torch.LongStorage(#self.size + 1)
   for i = 1, #self.size do
      self.nelement = self.nelement * self.size[i]
      self.batchsize[i + 1] = self.size[i]
   end
end

function Reshape:updateOutput(input)
   if not input:isContiguous() then
      self._input = self._input or input.new()
      self._input:resizeAs(input):copy(input)
      input = self._input
   end
   -- Without a batchMode, an input of exactly one sample's elements is one sample, unless its first
   -- dimension is 1: that is a batch of one.
   if (self.batchMode == false)
      or (self.batchMode == nil and input:nElement() == self.nelement and input:size(1) ~= 1) then
      self.output:view(input, self.size)
   else
      self.batchsize[1] = input:size(1)
      self.output:view(input, self.batchsize)
   end
   return self.output
end

function Reshape:updateGradInput(input, gradOutput)
   if not gradOutput:isContiguous() then
      self._gradOutput = self._gradOutput or gradOutput.new()
      self._gradOutput:resizeAs(gradOutput):copy(gradOutput)
      gradOutput = self._gradOutput
   end
   self.gradInput:viewAs(gradOutput, input)
   return self.gradInput
end

function Reshape:__tostring__()
   local sizes = {}
   for i = 1, #self.size do sizes[i] = tostring(self.size[i]) end
   return torch.type(self) .. '(' .. table.concat(sizes, 'x') .. ')'
end

function Reshape:clearState()
   self._input = nil
   self._gradOutput = nil
   return parent.clearState(self)
end

return Reshape
