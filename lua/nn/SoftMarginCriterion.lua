-- nn.SoftMarginCriterion(): the two-class logistic loss, sum log(1 + exp(-x_i y_i)) with labels y_i
-- of 1 or -1, divided by the element count unless sizeAverage is false.

local SoftMarginCriterion, parent = torch.class('nn.SoftMarginCriterion', 'nn.Criterion')

function SoftMarginCriterion:__init()
   parent.__init(self)
   self.sizeAverage = true
end

local function matched(input, target)
   if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      error(string.format('nn.SoftMarginCriterion: the target must be a tensor of %d elements, like the input',
         input:nElement()), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

-- log(1 + exp(v)) with v = -x y, as max(v, 0) + log(1 + exp(-|v|)) so that a large |v| neither
-- overflows nor loses the small term.
local function softMarginLoss(input, target)
   local v = torch.cmul(input, target):mul(-1)
   local tail = v:clone():abs():mul(-1):exp():log1p()
   return v:cmax(0):add(tail):sum()
end

-- d/dx log(1 + exp(-x y)) = -y sigmoid(-x y).
local function softMarginGrad(gradInput, input, target, norm)
   gradInput:resizeAs(input):cmul(input, target):mul(-1):sigmoid():cmul(target):mul(-norm)
   return gradInput
end

function SoftMarginCriterion:updateOutput(input, target)
   target = matched(input, target)
   self.output = softMarginLoss(input, target)
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function SoftMarginCriterion:updateGradInput(input, target)
   target = matched(input, target)
   softMarginGrad(self.gradInput, input, target, self.sizeAverage and 1 / input:nElement() or 1)
   return self.gradInput
end

return SoftMarginCriterion
