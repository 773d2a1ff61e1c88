-- nn.CrossEntropyCriterion([weights, sizeAverage]): LogSoftMax followed by ClassNLLCriterion,
-- for raw scores.

local CrossEntropyCriterion, parent = torch.class('nn.CrossEntropyCriterion', 'nn.Criterion')

function CrossEntropyCriterion:__init(weights, sizeAverage)
   parent.__init(self)
   self.lsm = nn.LogSoftMax()
   self.nll = nn.ClassNLLCriterion(weights, sizeAverage)
   -- Set (here or later by the user), it is passed on to nll; left nil, nll keeps its own.
   self.sizeAverage = sizeAverage
end

function CrossEntropyCriterion:updateOutput(input, target)
   input = nn.utils.squeezeView(input)
   target = type(target) == 'number' and target or nn.utils.squeezeView(target)
   self.lsm:updateOutput(input)
   if self.sizeAverage ~= nil then self.nll.sizeAverage = self.sizeAverage end
   self.nll:updateOutput(self.lsm.output, target)
   self.output = self.nll.output
   return self.output
end

function CrossEntropyCriterion:updateGradInput(input, target)
   local size = input:size()
   input = nn.utils.squeezeView(input)
   target = type(target) == 'number' and target or nn.utils.squeezeView(target)
   self.nll:updateGradInput(self.lsm.output, target)
   self.lsm:updateGradInput(input, self.nll.gradInput)
   self.gradInput:view(self.lsm.gradInput, size)
   return self.gradInput
end

return CrossEntropyCriterion
