-- nn.SpatialSubtractiveNormalization(nInputPlane[, kernel]): subtracts from every plane of
-- C x H x W images (or a batch) the local mean taken over all planes with the weights `kernel`
-- (2-D, or 1-D used along both rows and columns; odd sizes; default 9 x 9 ones), normalised to
-- sum to one. Near the borders the mean covers only the pixels inside the image (the weights
-- are renormalised there, through `coef`).
--
-- The local weighted sum over planes, E(x) = conv2d(sum over planes of x, K) with zero padding
-- keeping the size, is shared with nn.SpatialDivisiveNormalization; it is one single-plane
-- convolution (nn.engine.convolution), and its adjoint the matching col2im pass.

local windows = require 'nn.engine.windows'
local convolution = require 'nn.engine.convolution'

local SpatialSubtractiveNormalization, parent =
   torch.class('nn.SpatialSubtractiveNormalization', 'nn.Module')

-- The checked kernel of a local-normalisation module, and the dims it was given in.
function SpatialSubtractiveNormalization.checkKernel(kernel, name)
   local kdim = kernel:nDimension()
   if kdim ~= 1 and kdim ~= 2 then error(name .. ': the averaging kernel must be 2D or 1D') end
   if kernel:size(1) % 2 == 0 or (kdim == 2 and kernel:size(2) % 2 == 0) then
      error(name .. ': the averaging kernel must have odd dimensions')
   end
   return kdim
end

function SpatialSubtractiveNormalization:__init(nInputPlane, kernel)
   parent.__init(self)
   self.nInputPlane = nInputPlane or 1
   kernel = kernel or torch.Tensor(9, 9):fill(1)
   SpatialSubtractiveNormalization.checkKernel(kernel, 'nn.SpatialSubtractiveNormalization')
   -- Normalised as the original did (it then cancels out in the mean).
   self.kernel = kernel:clone():div(kernel:sum() * self.nInputPlane)
   self.coef = torch.Tensor(1, 1, 1)
end

-- The 2-D weights of E and its geometry over an H x W plane.
function SpatialSubtractiveNormalization.estimator(kernel, H, W)
   local k2 = kernel
   if kernel:nDimension() == 1 then k2 = torch.ger(kernel, kernel) end
   local kH, kW = k2:size(1), k2:size(2)
   local g = windows.geometry({ H, W }, { kH, kW }, { 1, 1 }, { math.floor(kH / 2), math.floor(kW / 2) })
   return { k2:contiguous():view(1, kH * kW) }, g
end

-- E(x) for x (N x C x H x W): N x 1 x H x W.
function SpatialSubtractiveNormalization.localSum(self, x, kernel)
   local weights, g = SpatialSubtractiveNormalization.estimator(kernel, x:size(3), x:size(4))
   self._cols = self._cols or x.new()
   self._scratch = self._scratch or x.new()
   local planes = x:sum(2)
   return convolution.forward(x.new(), planes, weights, nil, g, self._cols, self._scratch)
end

-- The adjoint of E: t (N x 1 x H x W) back to one plane, to be repeated over the C planes.
function SpatialSubtractiveNormalization.localSumAdjoint(self, t, kernel)
   local weights, g = SpatialSubtractiveNormalization.estimator(kernel, t:size(3), t:size(4))
   self._cols = self._cols or t.new()
   self._scratch = self._scratch or t.new()
   local out = t.new(t:size(1), 1, t:size(3), t:size(4))
   return convolution.backward(out, t, weights, g, self._cols, self._scratch)
end

-- E of a plane of ones (1 x 1 x H x W): the weight the mean covers at each pixel.
function SpatialSubtractiveNormalization.coefficients(self, x, kernel)
   local H, W = x:size(3), x:size(4)
   local c = self._coef
   if not c or c:size(3) ~= H or c:size(4) ~= W or torch.type(c) ~= torch.type(x) then
      local ones = x.new(1, x:size(2), H, W):fill(1)
      self._coef = SpatialSubtractiveNormalization.localSum(self, ones, kernel)
   end
   self.coef = self._coef
   return self._coef
end

local function batched(self, input)
   local x, isBatch = windows.batch(input, 2, torch.type(self))
   if x:size(2) ~= self.nInputPlane then
      error(string.format('%s: input has %d planes, expected %d', torch.type(self), x:size(2), self.nInputPlane), 3)
   end
   return x, isBatch
end
SpatialSubtractiveNormalization.batched = batched

function SpatialSubtractiveNormalization:updateOutput(input)
   local x, isBatch = batched(self, input)
   local coef = SpatialSubtractiveNormalization.coefficients(self, x, self.kernel)
   local mean = SpatialSubtractiveNormalization.localSum(self, x, self.kernel)
   mean:cdiv(coef:expandAs(mean))
   self.output:resizeAs(x):copy(x):add(-1, mean:expandAs(x))
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

-- d/dx of x - E(x) / coef: gradOutput minus E's adjoint of (the planes' summed gradient / coef).
function SpatialSubtractiveNormalization:updateGradInput(input, gradOutput)
   local x, isBatch = batched(self, input)
   local coef = SpatialSubtractiveNormalization.coefficients(self, x, self.kernel)
   local g = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   local t = g:sum(2)
   t:cdiv(coef:expandAs(t))
   local back = SpatialSubtractiveNormalization.localSumAdjoint(self, t, self.kernel)
   self.gradInput:resizeAs(x):copy(g):add(-1, back:expandAs(x))
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function SpatialSubtractiveNormalization:clearState()
   nn.utils.clear(self, '_coef', '_cols', '_scratch')
   return parent.clearState(self)
end

return SpatialSubtractiveNormalization
