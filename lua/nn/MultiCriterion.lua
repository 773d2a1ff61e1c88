-- nn.MultiCriterion(): a weighted sum of criterions, each applied to the same input and target
-- (tensors or nested tables); the gradient is the same weighted sum of theirs.

local MultiCriterion, parent = torch.class('nn.MultiCriterion', 'nn.Criterion')

function MultiCriterion:__init()
   parent.__init(self)
   self.criterions = {}
   -- A storage, as the original keeps it (saved models carry it so).
   self.weights = torch.DoubleStorage()
end

-- Adds `criterion` with weight `weight` (default 1); returns self for chaining.
function MultiCriterion:add(criterion, weight)
   assert(criterion, 'nn.MultiCriterion.add: no criterion given')
   table.insert(self.criterions, criterion)
   local n = #self.criterions
   local weights = torch.DoubleStorage(n)
   for i = 1, n - 1 do weights[i] = self.weights[i] end
   weights[n] = weight or 1
   self.weights = weights
   return self
end

function MultiCriterion:updateOutput(input, target)
   local sum = 0
   for i, criterion in ipairs(self.criterions) do
      sum = sum + self.weights[i] * criterion:updateOutput(input, target)
   end
   self.output = sum
   return self.output
end

function MultiCriterion:updateGradInput(input, target)
   self.gradInput = nn.utils.recursiveResizeAs(self.gradInput, input)
   nn.utils.recursiveFill(self.gradInput, 0)
   for i, criterion in ipairs(self.criterions) do
      nn.utils.recursiveAdd(self.gradInput, self.weights[i], criterion:updateGradInput(input, target))
   end
   return self.gradInput
end

function MultiCriterion:type(type, tensorCache)
   for _, criterion in ipairs(self.criterions) do
      criterion:type(type, tensorCache)
   end
   return parent.type(self, type, tensorCache)
end

return MultiCriterion
