-- nn.JoinTable(dimension[, nInputDims]): the tensors of a table joined along `dimension` (negative:
-- counted from the last). With nInputDims given, an input of nInputDims + 1 dimensions is taken as
-- a batch and the join moves one dimension down.

local tableinput = require 'nn.engine.tableinput'

local JoinTable, parent = torch.class('nn.JoinTable', 'nn.Module')

function JoinTable:__init(dimension, nInputDims)
   parent.__init(self)
   assert(type(dimension) == 'number', 'nn.JoinTable: a dimension is expected')
   self.size = torch.LongStorage()
   self.dimension = dimension
   self.gradInput = {}
   self.nInputDims = nInputDims
end

function JoinTable:_getPositiveDimension(input)
   local dimension = self.dimension
   if dimension < 0 then
      dimension = input[1]:dim() + dimension + 1
   elseif self.nInputDims and input[1]:dim() == self.nInputDims + 1 then
      dimension = dimension + 1
   end
   return dimension
end

local checkTable = tableinput.tensors('nn.JoinTable')

function JoinTable:updateOutput(input)
   checkTable(input)
   local dim = self:_getPositiveDimension(input)
   if dim < 1 or dim > input[1]:dim() then
      error(string.format('nn.JoinTable: dimension %d out of range for %d-D inputs', dim, input[1]:dim()), 2)
   end
   -- The joined size: the first input's, with the lengths along `dim` added up.
   self.size:resize(input[1]:dim()):copy(input[1]:size())
   for i = 2, #input do
      local t = input[i]
      if not torch.isTensor(t) or t:dim() ~= input[1]:dim() then
         error(string.format('nn.JoinTable: input %d has %s dimensions, the first %d', i,
            torch.isTensor(t) and t:dim() or 'no', input[1]:dim()), 2)
      end
      for d = 1, t:dim() do
         if d ~= dim and t:size(d) ~= self.size[d] then
            error(string.format('nn.JoinTable: input %d has size %d in dimension %d, the first %d', i, t:size(d),
               d, self.size[d]), 2)
         end
      end
      self.size[dim] = self.size[dim] + t:size(dim)
   end
   self.output:resize(self.size)
   local offset = 1
   for i = 1, #input do
      local n = input[i]:size(dim)
      self.output:narrow(dim, offset, n):copy(input[i])
      offset = offset + n
   end
   return self.output
end

function JoinTable:updateGradInput(input, gradOutput)
   checkTable(input)
   local dim = self:_getPositiveDimension(input)
   local offset = 1
   for i = 1, #input do
      local n = input[i]:size(dim)
      self.gradInput[i] = self.gradInput[i] or input[i].new()
      self.gradInput[i]:resizeAs(input[i]):copy(gradOutput:narrow(dim, offset, n))
      offset = offset + n
   end
   for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
   return self.gradInput
end

function JoinTable:type(type, tensorCache)
   self.gradInput = {}
   return parent.type(self, type, tensorCache)
end

return JoinTable
