-- nn.ClassNLLCriterion([weights, sizeAverage, ignoreIndex]): the negative log-likelihood of the
-- target class, given log-probabilities (a vector, or a batch N x C with N targets), each sample
-- weighted by its class's weight; averaged over the total weight unless sizeAverage is false.
-- Samples whose target is ignoreIndex count for nothing.

local ClassNLLCriterion, parent = torch.class('nn.ClassNLLCriterion', 'nn.Criterion')

function ClassNLLCriterion:__init(weights, sizeAverage, ignoreIndex)
   parent.__init(self)
   self.sizeAverage = (sizeAverage == nil) and true or sizeAverage
   self.ignoreIndex = ignoreIndex or -100
   if weights then
      assert(weights:dim() == 1, 'nn.ClassNLLCriterion: weights must be a vector')
      self.weights = weights
   end
   self.output_tensor = torch.zeros(1)
   self.total_weight_tensor = torch.ones(1)
   self.target = torch.zeros(1):long()
end

-- The targets as a list of class numbers, checked against the number of classes.
local function targets(self, input, target)
   local list = {}
   if type(target) == 'number' then
      list[1] = target
   else
      local t = target:long():view(-1)
      for i = 1, t:nElement() do list[i] = t[i] end
   end
   local nClasses = input:size(input:dim())
   local nSamples = input:dim() == 1 and 1 or input:size(1)
   if #list ~= nSamples then
      error(string.format('nn.ClassNLLCriterion: %d targets for %d samples', #list, nSamples))
   end
   for i, t in ipairs(list) do
      if t ~= self.ignoreIndex and (t < 1 or t > nClasses) then
         error(string.format('nn.ClassNLLCriterion: target %d out of range (1 to %d)', t, nClasses))
      end
   end
   return list
end

function ClassNLLCriterion:updateOutput(input, target)
   assert(input:dim() == 1 or input:dim() == 2, 'nn.ClassNLLCriterion: input must be a vector or a matrix')
   local list = targets(self, input, target)
   local rows = input:dim() == 1 and input:view(1, -1) or input
   local total, totalWeight = 0, 0
   for i, t in ipairs(list) do
      if t ~= self.ignoreIndex then
         local w = self.weights and self.weights[t] or 1
         total = total - w * rows[i][t]
         totalWeight = totalWeight + w
      end
   end
   if self.sizeAverage and totalWeight > 0 then total = total / totalWeight end
   self.output = total
   self.output_tensor[1] = total
   self.total_weight_tensor[1] = totalWeight
   return self.output
end

function ClassNLLCriterion:updateGradInput(input, target)
   local list = targets(self, input, target)
   self.gradInput:resizeAs(input):zero()
   local rows = input:dim() == 1 and self.gradInput:view(1, -1) or self.gradInput
   local totalWeight = self.total_weight_tensor[1]
   for i, t in ipairs(list) do
      if t ~= self.ignoreIndex then
         local w = self.weights and self.weights[t] or 1
         rows[i][t] = -w
         if self.sizeAverage and totalWeight > 0 then rows[i][t] = -w / totalWeight end
      end
   end
   return self.gradInput
end

return ClassNLLCriterion
