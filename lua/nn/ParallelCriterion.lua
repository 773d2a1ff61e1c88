-- nn.ParallelCriterion([repeatTarget]): a weighted sum of criterions, the i-th applied to input[i]
-- and target[i] (or to the whole target for every one when repeatTarget is true). Inputs and
-- targets may be nested tables (a criterion may itself take a table); the gradient has the
-- input's structure.

local ParallelCriterion, parent = torch.class('nn.ParallelCriterion', 'nn.Criterion')

function ParallelCriterion:__init(repeatTarget)
   parent.__init(self)
   self.criterions = {}
   self.weights = {}
   self.gradInput = {}
   self.repeatTarget = repeatTarget
end

-- Adds `criterion` with weight `weight` (default 1); returns self for chaining.
function ParallelCriterion:add(criterion, weight)
   assert(criterion, 'nn.ParallelCriterion.add: no criterion given')
   table.insert(self.criterions, criterion)
   table.insert(self.weights, weight or 1)
   return self
end

local function targetOf(self, target, i)
   if self.repeatTarget then return target end
   if type(target) ~= 'table' then
      error('nn.ParallelCriterion: the target must be a table of one target per criterion '
         .. '(or set repeatTarget to share one target)', 3)
   end
   return target[i]
end

function ParallelCriterion:updateOutput(input, target)
   assert(type(input) == 'table', 'nn.ParallelCriterion: the input must be a table of one input per criterion')
   local sum = 0
   for i, criterion in ipairs(self.criterions) do
      sum = sum + self.weights[i] * criterion:updateOutput(input[i], targetOf(self, target, i))
   end
   self.output = sum
   return self.output
end

function ParallelCriterion:updateGradInput(input, target)
   self.gradInput = nn.utils.recursiveResizeAs(self.gradInput, input)
   nn.utils.recursiveFill(self.gradInput, 0)
   for i, criterion in ipairs(self.criterions) do
      local g = criterion:updateGradInput(input[i], targetOf(self, target, i))
      nn.utils.recursiveAdd(self.gradInput[i], self.weights[i], g)
   end
   return self.gradInput
end

function ParallelCriterion:type(type, tensorCache)
   self.gradInput = {}
   return parent.type(self, type, tensorCache)
end

return ParallelCriterion
