-- nn.View(sizes): the input seen with other sizes (no copy when it is contiguous). One size may
-- be -1 (whatever is left). An input with more elements than the sizes hold is a batch: the
-- output gets a first dimension for the extra factor (View(6) on 5 x 2 x 6 gives 10 x 6).
-- setNumInputDims(n) says how many trailing dimensions make one sample; those before are batch.

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

-- The batch size of `input` (nil when it is one sample). The trailing numInputDims dimensions
-- (all of them without numInputDims) hold whole samples, numElements elements each unless a size
-- is -1; any dimension before them is batch too.
local function batchOf(self, input)
   local nd = input:dim()
   local sampleDims = math.min(self.numInputDims or nd, nd)
   local inner = 1
   for d = nd - sampleDims + 1, nd do inner = inner * input:size(d) end
   if self.numElements == 0 or inner % self.numElements ~= 0 then
      error(string.format('nn.View: the input has %d elements per sample, which does not fit the view of %d',
         inner, self.numElements))
   end
   local batch = inner / self.numElements
   for i = 1, #self.size do
      if self.size[i] == -1 then
         -- the remainder is the size left open, not a batch
         batch = 1
         break
      end
   end
   for d = 1, nd - sampleDims do batch = batch * input:size(d) end
   if batch == 1 and (not self.numInputDims or nd <= self.numInputDims) then
      return nil
   end
   return batch
end

-- The output sizes for `input` (the -1 resolved), with the batch first.
local function outputSize(self, input, batch)
   local dims = {}
   if batch then dims[1] = batch end
   for i = 1, #self.size do
      local s = self.size[i]
      if s == -1 then
         s = input:nElement() / (batch or 1) / self.numElements
      end
      dims[#dims + 1] = s
   end
   return torch.LongStorage(dims)
end

function View:updateOutput(input)
   local size = outputSize(self, input, batchOf(self, input))
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
