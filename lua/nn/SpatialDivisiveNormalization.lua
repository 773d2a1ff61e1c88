-- nn.SpatialDivisiveNormalization(nInputPlane[, kernel, threshold, thresval]): divides every
-- plane of C x H x W images (or a batch) by the local standard deviation taken over all planes
-- with the weights `kernel` (see nn.SpatialSubtractiveNormalization):
--   s = sqrt(E(x^2)) / coef;  output = x / (s > threshold ? s : thresval)
-- threshold defaults to 1e-4, thresval to threshold.

local windows = require 'nn.engine.windows'

require 'nn.SpatialSubtractiveNormalization'
local SpatialDivisiveNormalization, parent = torch.class('nn.SpatialDivisiveNormalization', 'nn.Module')

local Sub = nn.SpatialSubtractiveNormalization

function SpatialDivisiveNormalization:__init(nInputPlane, kernel, threshold, thresval)
   parent.__init(self)
   self.nInputPlane = nInputPlane or 1
   kernel = kernel or torch.Tensor(9, 9):fill(1)
   self.threshold = threshold or 1e-4
   self.thresval = thresval or threshold or 1e-4
   local kdim = Sub.checkKernel(kernel, 'nn.SpatialDivisiveNormalization')
   -- Normalised as the original did: the weights over all planes sum to one.
   if kdim == 2 then
      self.kernel = kernel:clone():div(kernel:sum() * self.nInputPlane)
   else
      self.kernel = kernel:clone():div(kernel:sum() * math.sqrt(self.nInputPlane))
   end
   self.coef = torch.Tensor(1, 1, 1)
end

-- The local deviations: v = E(x^2), std = sqrt(v), the thresholded divisor and where it is not
-- the threshold's value (all N x 1 x H x W).
local function deviations(self, x)
   local coef = Sub.coefficients(self, x, self.kernel)
   local std = Sub.localSum(self, torch.cmul(x, x), self.kernel):sqrt()
   local adjusted = torch.cdiv(std, coef:expandAs(std))
   local kept = torch.gt(adjusted, self.threshold)
   local divisor = adjusted:clone():maskedFill(torch.le(adjusted, self.threshold), self.thresval)
   return coef, std, divisor, kept
end

function SpatialDivisiveNormalization:updateOutput(input)
   local x, isBatch = Sub.batched(self, input)
   local _, _, divisor = deviations(self, x)
   self.output:resizeAs(x):copy(x):cdiv(divisor:expandAs(x))
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

-- d/dx_c of x_c / d(x): gradOutput / d, plus, where d follows the deviation,
-- 2 x_c E'(sum over planes of -gradOutput * x / d^2 / (coef * 2 std)).
function SpatialDivisiveNormalization:updateGradInput(input, gradOutput)
   local x, isBatch = Sub.batched(self, input)
   local g = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   local coef, std, divisor, kept = deviations(self, x)
   local q = torch.cmul(g, x):sum(2):mul(-1)
   q:cdiv(torch.cmul(divisor, divisor))
   q:cdiv(coef:expandAs(q)):cdiv(std:clone():mul(2):maskedFill(torch.eq(std, 0), 1))
   q:maskedFill(torch.eq(kept, 0), 0)
   local back = Sub.localSumAdjoint(self, q, self.kernel)
   self.gradInput:resizeAs(x):copy(g):cdiv(divisor:expandAs(x))
   self.gradInput:add(torch.cmul(x, back:expandAs(x)):mul(2))
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function SpatialDivisiveNormalization:clearState()
   nn.utils.clear(self, '_coef', '_cols', '_scratch')
   return parent.clearState(self)
end

return SpatialDivisiveNormalization
