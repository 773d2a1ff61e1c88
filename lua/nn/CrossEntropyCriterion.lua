-- nn.CrossEntropyCriterion([weights, sizeAverage]): LogSoftMax followed by ClassNLLCriterion, for
-- raw scores (a vector, or a batch N x C; dimensions of size 1 are squeezed out first).
-- sizeAverage starts as the inner nll's. Setting it here is passed on to nll at the next pass;
-- setting nll.sizeAverage directly (as older scripts do) is kept as long as this one is not
-- changed: `oldSizeAverage` remembers the value last passed on.

local CrossEntropyCriterion, parent = torch.class('nn.CrossEntropyCriterion', 'nn.Criterion')

function CrossEntropyCriterion:__init(weights, sizeAverage)
   parent.__init(self)
   self.lsm = nn.LogSoftMax()
   self.nll = nn.ClassNLLCriterion(weights, sizeAverage)
   self.sizeAverage = self.nll.sizeAverage
   self.oldSizeAverage = self.sizeAverage
end

-- Passes a changed sizeAverage on to nll.
local function syncSizeAverage(self)
   if self.sizeAverage ~= self.oldSizeAverage then
      self.nll.sizeAverage = self.sizeAverage
      self.oldSizeAverage = self.sizeAverage
   end
end

local function squeezed(input, target)
   return nn.utils.squeezeView(input), type(target) == 'number' and target or nn.utils.squeezeView(target)
end

function CrossEntropyCriterion:updateOutput(input, target)
   syncSizeAverage(self)
   input, target = squeezed(input, target)
   self.lsm:updateOutput(input)
   self.nll:updateOutput(self.lsm.output, target)
   self.output = self.nll.output
   return self.output
end

function CrossEntropyCriterion:updateGradInput(input, target)
   syncSizeAverage(self)
   local size = input:size()
   input, target = squeezed(input, target)
   self.nll:updateGradInput(self.lsm.output, target)
   self.lsm:updateGradInput(input, self.nll.gradInput)
   self.gradInput:view(self.lsm.gradInput, size)
   return self.gradInput
end

return CrossEntropyCriterion
