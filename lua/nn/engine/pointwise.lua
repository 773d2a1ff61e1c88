-- The criterions whose loss is a sum over the elements of one term of x_i and y_i (AbsCriterion,
-- MSECriterion, SmoothL1Criterion, DistKLDivCriterion, MarginCriterion): one place checks the
-- target, calls the fused kernel (kernels::nn_loss, one pass in Rust) or else the criterion's
-- tensor-method loss and gradient, and divides by the element count when sizeAverage is set.
--
-- pointwise.define(class, parent, spec) gives `class` its __init([sizeAverage]) (sizeAverage true
-- unless false is given; a criterion with other arguments defines its own after this call),
-- updateOutput and updateGradInput. `spec` holds what differs between the criterions:
--   name         the criterion's name in errors ('nn.MSECriterion');
--   kernel       the fused kernel's name of the loss ('mse');
--   loss(input, target, arg), grad(gradInput, input, target, norm, arg): the tensor-method
--                paths, grad's result times norm;
--   arg(self)    the kernel's and the paths' last argument (MarginCriterion's margin), or nil;
--   gradScale    what the tensor-method gradient's norm is multiplied by (MSE's 2: the kernel
--                applies it itself), 1 when nil;
--   sameSize     the target must have the input's size (else its element count, any shape);
--   sayGot       the element-count error also says what the target was.

local kernels = require 'nn.engine.kernels'

local pointwise = {}

-- The target laid out like the input, in the input's type; errors name the caller's caller
-- (level 3: this function, the pass, who called the pass), as each criterion's own check did.
local function matched(spec, input, target)
   if spec.sameSize then
      if not torch.isTensor(target) or not target:isSameSizeAs(input) then
         error(spec.name .. ': input and target should have the same size', 3)
      end
   elseif not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      local got = ''
      if spec.sayGot then
         got = string.format(' (got %s)', torch.isTensor(target) and target:nElement() .. ' elements'
            or torch.type(target))
      end
      error(string.format('%s: the target must be a tensor of %d elements, like the input%s', spec.name,
         input:nElement(), got), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

function pointwise.define(class, parent, spec)
   local gradScale = spec.gradScale or 1

   function class:__init(sizeAverage)
      parent.__init(self)
      if sizeAverage ~= nil then
         self.sizeAverage = sizeAverage
      else
         self.sizeAverage = true
      end
   end

   function class:updateOutput(input, target)
      target = matched(spec, input, target)
      local arg = spec.arg and spec.arg(self)
      local k = kernels.fused('pointwiseLoss', input, target)
      if k then
         self.output = k(spec.kernel, input:contiguous(), target:contiguous(), nil, arg)
      else
         self.output = spec.loss(input, target, arg)
      end
      if self.sizeAverage then self.output = self.output / input:nElement() end
      return self.output
   end

   function class:updateGradInput(input, target)
      target = matched(spec, input, target)
      local arg = spec.arg and spec.arg(self)
      local norm = self.sizeAverage and 1 / input:nElement() or 1
      local k = kernels.fused('pointwiseGrad', input, target, self.gradInput)
      if k then
         self.gradInput:resizeAs(input)
         k(spec.kernel, self.gradInput, input:contiguous(), target:contiguous(), nil, norm, arg)
         return self.gradInput
      end
      spec.grad(self.gradInput, input, target, gradScale * norm, arg)
      return self.gradInput
   end
end

return pointwise
