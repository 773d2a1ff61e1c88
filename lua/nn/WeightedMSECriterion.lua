-- nn.WeightedMSECriterion(weight): nn.MSECriterion between the input and the target scaled
-- element-wise by `weight` (a tensor shaped like one sample of the target; for a batch, each row
-- of the target is scaled by it): sum (x_i - w_i y_i)^2, averaged unless sizeAverage is false.

require 'nn.MSECriterion'

local WeightedMSECriterion, parent = torch.class('nn.WeightedMSECriterion', 'nn.MSECriterion')

function WeightedMSECriterion:__init(w)
   parent.__init(self)
   assert(torch.isTensor(w), 'nn.WeightedMSECriterion: a weight tensor is expected')
   self.weight = w:clone()
end

-- The target times the weight, in self.buffer (shaped like the input).
local function weightedTarget(self, input, target)
   if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      error(string.format('nn.WeightedMSECriterion: the target must be a tensor of %d elements, like the input',
         input:nElement()), 3)
   end
   self.buffer = self.buffer or input.new()
   if self.buffer:type() ~= input:type() then self.buffer = input.new() end
   self.buffer:resize(input:size()):copy(target:contiguous():view(input:size()))
   local weight = self.weight
   if weight:type() ~= input:type() then weight = weight:type(input:type()) end
   if input:dim() - 1 == weight:dim() then
      -- A batch: every row is weighted alike.
      local size = input:size()
      size[1] = 1
      self.buffer:cmul(weight:contiguous():view(size):expandAs(input))
   else
      if weight:nElement() ~= input:nElement() then
         error(string.format('nn.WeightedMSECriterion: %d weights for an input of %d elements',
            weight:nElement(), input:nElement()), 3)
      end
      self.buffer:cmul(weight:contiguous():view(input:size()))
   end
   return self.buffer
end

function WeightedMSECriterion:updateOutput(input, target)
   return parent.updateOutput(self, input, weightedTarget(self, input, target))
end

function WeightedMSECriterion:updateGradInput(input, target)
   return parent.updateGradInput(self, input, weightedTarget(self, input, target))
end

return WeightedMSECriterion
