-- nn.SmoothL1Criterion([sizeAverage]): the Huber loss with threshold 1, summed over every element:
-- 0.5 d^2 where |d| < 1, |d| - 0.5 elsewhere (d = x - y); divided by the element count unless
-- sizeAverage is false. The target has the input's element count (elements matched in order).

local kernels = require 'nn.engine.kernels'

local SmoothL1Criterion, parent = torch.class('nn.SmoothL1Criterion', 'nn.Criterion')

function SmoothL1Criterion:__init(sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
end

local function matched(input, target)
   if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      error(string.format('nn.SmoothL1Criterion: the target must be a tensor of %d elements, like the input',
         input:nElement()), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

-- With c = d clamped to [-1, 1], c * (d - c/2) is 0.5 d^2 inside and |d| - 0.5 outside.
local function smoothL1Loss(input, target)
   local d = torch.add(input, -1, target)
   local c = d:clone():clamp(-1, 1)
   return d:add(-0.5, c):cmul(c):sum()
end

-- The derivative is d clamped to [-1, 1].
local function smoothL1Grad(gradInput, input, target, norm)
   return gradInput:resizeAs(input):add(input, -1, target):clamp(-1, 1):mul(norm)
end

function SmoothL1Criterion:updateOutput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseLoss', input, target)
   if k then
      -- One pass in Rust (kernels::nn_loss).
      self.output = k('smoothl1', input:contiguous(), target:contiguous(), nil, nil)
   else
      self.output = smoothL1Loss(input, target)
   end
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function SmoothL1Criterion:updateGradInput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseGrad', input, target, self.gradInput)
   if k then
      self.gradInput:resizeAs(input)
      k('smoothl1', self.gradInput, input:contiguous(), target:contiguous(), nil, self.sizeAverage and 1 / input:nElement() or 1, nil)
      return self.gradInput
   end
   smoothL1Grad(self.gradInput, input, target, self.sizeAverage and 1 / input:nElement() or 1)
   return self.gradInput
end

return SmoothL1Criterion
