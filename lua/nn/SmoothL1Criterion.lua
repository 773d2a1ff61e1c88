-- nn.SmoothL1Criterion([sizeAverage]): the Huber loss with threshold 1, summed over every element:
-- 0.5 d^2 where |d| < 1, |d| - 0.5 elsewhere (d = x - y); divided by the element count unless
-- sizeAverage is false. The target has the input's element count (elements matched in order).

local pointwise = require 'nn.engine.pointwise'

local SmoothL1Criterion, parent = torch.class('nn.SmoothL1Criterion', 'nn.Criterion')

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

pointwise.define(SmoothL1Criterion, parent, {
   name = 'nn.SmoothL1Criterion', kernel = 'smoothl1', loss = smoothL1Loss, grad = smoothL1Grad,
})

return SmoothL1Criterion
