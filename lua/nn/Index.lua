-- nn.Index(dimension): input {t, indices} (a LongTensor); the output is t:index(dimension,
-- indices). The gradient of t adds gradOutput back at the indexed places (an index that occurs
-- twice gets both); the indices get a zero gradient.

local indexing = require 'nn.engine.indexing'

local Index, parent = torch.class('nn.Index', 'nn.Module')

function Index:__init(dimension)
   parent.__init(self)
   self.dimension = dimension
   self.gradInput = { self.gradInput, self.gradInput.new() }
end

function Index:updateOutput(input)
   local t, index = input[1], indexing.tensor(input[2])
   self.output:index(t, self.dimension, index)
   return self.output
end

function Index:updateGradInput(input, gradOutput)
   local t, index = input[1], indexing.tensor(input[2])
   self.gradInput[2] = self.gradInput[2]:type() == input[2]:type() and self.gradInput[2] or input[2].new()
   self.gradInput[2]:resize(index:size()):zero()
   self.gradInput[1]:resizeAs(t):zero():indexAdd(self.dimension, index, gradOutput)
   return self.gradInput
end

function Index:clearState()
   self.gradInput[1]:set()
   self.gradInput[2]:set()
   self.output:set()
   return self
end

return Index
