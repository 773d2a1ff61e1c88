-- nn.View(sizes): the input seen with other sizes (no copy when it is contiguous). One size may
-- be -1 (whatever is left). An input with more elements than the sizes hold is a batch: its first
-- dimension is kept. setNumInputDims(n) says how many trailing dimensions make one sample.

local View, parent = torch.class('nn.View', 'nn.Module')

function View:resetSize(...)
   local args = { ... }
   if select('#', ...) == 1 and torch.typename(args[1]) == 'torch.LongStorage' then
      self.size = args[1]
   else
      self.size = torch.LongStorage(#args)
      for i, s in ipairs(args) do self.size[i] = s end
   end
   self.numElements = 1
   local inferdim = false
   for i = 1, #self.size do
      local s = self.size[i]
      if s >= 0 then
         self.numElements = self.numElements * s
      else
         assert(s == -1, 'nn.View: a size must be positive or -1')
         assert(not inferdim, 'nn.View: only one size may be -1')
         inferdim = true
      end
   end
   return self
end

function View:__init(...)
   parent.__init(self)
   self:resetSize(...)
   self.numInputDims = nil
end

function View:setNumInputDims(numInputDims)
   self.numInputDims = numInputDims
   return self
end

-- The batch size of `input` (nil when it is one sample), and the elements of one sample.
local function batchOf(self, input)
   local n = input:nElement()
   if self.numInputDims and input:dim() > self.numInputDims then
      local b = 1
      for d = 1, input:dim() - self.numInputDims do b = b * input:size(d) end
      return b, n / math.max(b, 1)
   end
   local hasMinus = false
   for i = 1, #self.size do if self.size[i] == -1 then hasMinus = true end end
   if not hasMinus and n ~= self.numElements then
      if self.numElements > 0 and n % self.numElements == 0 and input:dim() > 1 then
         return input:size(1), n / input:size(1)
      end
      error(string.format('nn.View: the input has %d elements, which does not fit the view of %d', n,
         self.numElements))
   end
   return nil, n
end

-- The output sizes for an input of `n` sample elements (the -1 resolved), with the batch first.
local function outputSize(self, batch, n)
   local dims = {}
   if batch then dims[1] = batch end
   for i = 1, #self.size do
      local s = self.size[i]
      if s == -1 then
         assert(self.numElements > 0 and n % self.numElements == 0,
            'nn.View: the input size cannot be divided into the view')
         s = n / self.numElements
      end
      dims[#dims + 1] = s
   end
   return torch.LongStorage(dims)
end

function View:updateOutput(input)
   local batch, n = batchOf(self, input)
   local size = outputSize(self, batch, n)
   if input:isContiguous() then
      self.output = input:view(size)
   else
      self._input = self._input or input.new()
      self._input:resizeAs(input):copy(input)
      self.output = self._input:view(size)
   end
   return self.output
end

function View:updateGradInput(input, gradOutput)
   if gradOutput:isContiguous() then
      self.gradInput = gradOutput:view(input:size())
   else
      self._gradOutput = self._gradOutput or gradOutput.new()
      self._gradOutput:resizeAs(gradOutput):copy(gradOutput)
      self.gradInput = self._gradOutput:view(input:size())
   end
   return self.gradInput
end

function View:__tostring__()
   local sizes = {}
   for i = 1, #self.size do sizes[i] = tostring(self.size[i]) end
   return torch.type(self) .. '(' .. table.concat(sizes, ', ') .. ')'
end

function View:clearState()
   self._input = nil
   self._gradOutput = nil
   return parent.clearState(self)
end

return View
