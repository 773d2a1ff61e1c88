-- nn.MultiLabelSoftMarginCriterion([weights, sizeAverage]): one-versus-all logistic loss for
-- multi-label targets: with p = sigmoid(x) and targets t in {0, 1},
-- -sum w_i (t_i log p_i + (1 - t_i) log(1 - p_i)), divided by the element count unless sizeAverage
-- is false. The input is a vector or a batch N x C (target alike); `weights` (optional) has one
-- entry per class and applies to every row of a batch.

local MultiLabelSoftMarginCriterion, parent = torch.class('nn.MultiLabelSoftMarginCriterion', 'nn.Criterion')

function MultiLabelSoftMarginCriterion:__init(weights, sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
   if weights ~= nil then
      assert(torch.isTensor(weights) and weights:dim() == 1,
         'nn.MultiLabelSoftMarginCriterion: weights must be a 1-D tensor')
      self.weights = weights
   end
   -- Its output, sigmoid(x), is the gradient's main term.
   self.sigmoid = nn.Sigmoid()
end

local function matched(input, target)
   if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      error(string.format('nn.MultiLabelSoftMarginCriterion: the target must be a tensor of %d elements, like the input',
         input:nElement()), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

-- The class weights laid over the input (repeated down the rows of a batch), or nil.
local function weightsFor(weights, input)
   if not weights then return nil end
   if weights:type() ~= input:type() then weights = weights:type(input:type()) end
   local n = input:size(input:dim())
   if weights:nElement() ~= n then
      error(string.format('nn.MultiLabelSoftMarginCriterion: %d weights for %d classes', weights:nElement(), n), 3)
   end
   if input:dim() == 1 then return weights end
   local size = torch.LongStorage(input:dim()):fill(1)
   size[input:dim()] = n
   return weights:contiguous():view(size):expandAs(input)
end

-- -(t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))) = max(x, 0) - x t + log(1 + exp(-|x|)), which
-- stays finite for large |x|.
local function softMarginLoss(input, target, weights)
   local loss = input:clone():cmax(0):addcmul(-1, input, target)
   loss:add(input:clone():abs():mul(-1):exp():log1p())
   if weights then loss:cmul(weights) end
   return loss:sum()
end

function MultiLabelSoftMarginCriterion:updateOutput(input, target)
   target = matched(input, target)
   self.sigmoid:updateOutput(input)
   self.output = softMarginLoss(input, target, weightsFor(self.weights, input))
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

-- The gradient is (sigmoid(x) - t) times the weight.
function MultiLabelSoftMarginCriterion:updateGradInput(input, target)
   target = matched(input, target)
   local p = self.sigmoid:updateOutput(input)
   self.gradInput:resizeAs(input):add(p, -1, target)
   local weights = weightsFor(self.weights, input)
   if weights then self.gradInput:cmul(weights) end
   if self.sizeAverage then self.gradInput:div(input:nElement()) end
   return self.gradInput
end

return MultiLabelSoftMarginCriterion
