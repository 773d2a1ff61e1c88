-- nn.MSECriterion([sizeAverage]): sum((input - target)^2), divided by the element count unless
-- sizeAverage is false.

local MSECriterion, parent = torch.class('nn.MSECriterion', 'nn.Criterion')

function MSECriterion:__init(sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
end

function MSECriterion:updateOutput(input, target)
   assert(input:nElement() == target:nElement(), 'nn.MSECriterion: input and target have different sizes')
   local diff = input.new():resizeAs(input):copy(input):add(-1, target:viewAs(input))
   self.output = diff:dot(diff)
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function MSECriterion:updateGradInput(input, target)
   local norm = self.sizeAverage and 2 / input:nElement() or 2
   self.gradInput:resizeAs(input):copy(input):add(-1, target:viewAs(input)):mul(norm)
   return self.gradInput
end

return MSECriterion
