-- nn.NarrowTable(offset[, length]): the `length` elements (default 1) of a table from `offset` on.
-- The gradient has the input's structure: gradOutput's elements at their places, zeros elsewhere.

local NarrowTable, parent = torch.class('nn.NarrowTable', 'nn.Module')

function NarrowTable:__init(offset, length)
   parent.__init(self)
   if type(offset) ~= 'number' then
      error('nn.NarrowTable(offset[, length]): the offset must be a number', 2)
   end
   self.offset = offset
   self.length = length or 1
   self.output = {}
   self.gradInput = {}
end

function NarrowTable:updateOutput(input)
   if type(input) ~= 'table' then
      error('nn.NarrowTable: the input must be a table', 2)
   end
   if self.offset < 1 or self.offset + self.length - 1 > #input then
      error(string.format('nn.NarrowTable: elements %d to %d asked of a table of %d', self.offset,
         self.offset + self.length - 1, #input), 2)
   end
   for k in pairs(self.output) do self.output[k] = nil end
   for i = 1, self.length do
      self.output[i] = input[self.offset + i - 1]
   end
   return self.output
end

function NarrowTable:updateGradInput(input, gradOutput)
   for i = 1, #gradOutput do
      self.gradInput[self.offset + i - 1] = gradOutput[i]
   end
   for i = 1, #input do
      if i < self.offset or i >= self.offset + self.length then
         self.gradInput[i] = nn.utils.recursiveResizeAs(self.gradInput[i], input[i])
         nn.utils.recursiveFill(self.gradInput[i], 0)
      end
   end
   for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
   return self.gradInput
end

function NarrowTable:type(type, tensorCache)
   self.output = {}
   self.gradInput = {}
   return parent.type(self, type, tensorCache)
end

-- output and gradInput hold the caller's tensors: drop the references, never empty them.
function NarrowTable:clearState()
   self.output = {}
   self.gradInput = {}
   return self
end

return NarrowTable
