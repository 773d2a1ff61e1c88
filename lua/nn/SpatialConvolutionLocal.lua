-- nn.SpatialConvolutionLocal(nInputPlane, nOutputPlane, iW, iH, kW, kH[, dW, dH, padW, padH]): a
-- locally connected layer: like nn.SpatialConvolution on iH x iW images, but every output
-- position has its own kernels. The weight is oH x oW x nOutputPlane x nInputPlane x kH x kW and
-- the bias nOutputPlane x oH x oW, with oH = floor((iH + 2*padH - kH) / dH) + 1 (oW alike).
--
-- Each output position is one small matrix product over the images' columns at that position:
-- batched over the positions (bmm).

local windows = require 'nn.engine.windows'

local SpatialConvolutionLocal, parent = torch.class('nn.SpatialConvolutionLocal', 'nn.Module')

function SpatialConvolutionLocal:__init(nInputPlane, nOutputPlane, iW, iH, kW, kH, dW, dH, padW, padH)
   parent.__init(self)
   self.nInputPlane = nInputPlane
   self.nOutputPlane = nOutputPlane
   self.kW, self.kH = kW, kH
   self.iW, self.iH = iW, iH
   self.dW, self.dH = dW or 1, dH or 1
   self.padW = padW or 0
   self.padH = padH or self.padW
   self.oW = math.floor((self.padW * 2 + iW - self.kW) / self.dW) + 1
   self.oH = math.floor((self.padH * 2 + iH - self.kH) / self.dH) + 1
   assert(1 <= self.oW and 1 <= self.oH, 'nn.SpatialConvolutionLocal: the output would be empty')
   self.weight = torch.Tensor(self.oH, self.oW, nOutputPlane, nInputPlane, kH, kW)
   self.bias = torch.Tensor(nOutputPlane, self.oH, self.oW)
   self.gradWeight = torch.Tensor():resizeAs(self.weight)
   self.gradBias = torch.Tensor():resizeAs(self.bias)
   self:reset()
end

function SpatialConvolutionLocal:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
   end
   self.weight:uniform(-stdv, stdv)
   self.bias:uniform(-stdv, stdv)
end

-- The input as a batch, checked against the sizes the module was made for, and the geometry.
local function setup(self, input)
   local x, isBatch = windows.batch(input, 2, 'nn.SpatialConvolutionLocal')
   if x:size(2) ~= self.nInputPlane or x:size(3) ~= self.iH or x:size(4) ~= self.iW then
      error(string.format('nn.SpatialConvolutionLocal: input of %dx%dx%d planes, expected %dx%dx%d', x:size(2),
         x:size(3), x:size(4), self.nInputPlane, self.iH, self.iW), 3)
   end
   local g = windows.geometry({ self.iH, self.iW }, { self.kH, self.kW }, { self.dH, self.dW },
      { self.padH, self.padW }, { 1, 1 }, { self.oH, self.oW })
   self.finput = self.finput or x.new()
   self.fgradInput = self.fgradInput or x.new()
   return x, isBatch, g
end

-- The weight (or its gradient) as O matrices of nOutputPlane x (nInputPlane*kH*kW).
local function matrices(self, w)
   return w:view(self.oH * self.oW, self.nOutputPlane, self.nInputPlane * self.kH * self.kW)
end

local function batchedGrad(gradOutput, isBatch)
   return isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
end

-- out (O x nOut x b) = W (O x nOut x CK) times each position's columns (O x CK x b).
local function forwardChunk(w, cols)
   local colsT = cols:permute(3, 2, 1):contiguous()
   return torch.bmm(w, colsT)
end

function SpatialConvolutionLocal:updateOutput(input)
   local x, isBatch, g = setup(self, input)
   local N, C = x:size(1), self.nInputPlane
   local nOut = self.nOutputPlane
   local w = matrices(self, self.weight)
   self.output:resize(N, nOut, self.oH, self.oW)
   local out = self.output:view(N, nOut, g.O)
   for n = 1, N do
      local cols = windows.unfold(self.finput, x:narrow(1, n, 1), g, self.fgradInput):view(1, C * g.K, g.O)
      out:narrow(1, n, 1):copy(forwardChunk(w, cols):permute(3, 2, 1))
   end
   out:add(self.bias:view(1, nOut, g.O):expand(N, nOut, g.O))
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function SpatialConvolutionLocal:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, g = setup(self, input)
   local N, C = x:size(1), self.nInputPlane
   local go = batchedGrad(gradOutput, isBatch):contiguous():view(N, self.nOutputPlane, g.O)
   local wT = matrices(self, self.weight):transpose(2, 3)
   self.gradInput:resize(x:size()):zero()
   for n = 1, N do
      local goT = go:narrow(1, n, 1):permute(3, 2, 1):contiguous() -- O x nOut x 1
      local gcols = torch.bmm(wT, goT):permute(3, 2, 1):contiguous() -- 1 x CK x O
      windows.fold(self.gradInput:narrow(1, n, 1), gcols:view(C, g.K, g.O), g, self.fgradInput)
   end
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function SpatialConvolutionLocal:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local x, isBatch, g = setup(self, input)
   local N, C = x:size(1), self.nInputPlane
   local nOut = self.nOutputPlane
   local go = batchedGrad(gradOutput, isBatch):contiguous():view(N, nOut, g.O)
   local gw = matrices(self, self.gradWeight)
   for n = 1, N do
      local cols = windows.unfold(self.finput, x:narrow(1, n, 1), g, self.fgradInput):view(1, C * g.K, g.O)
      local colsT = cols:permute(3, 1, 2):contiguous() -- O x 1 x CK
      local goT = go:narrow(1, n, 1):permute(3, 2, 1):contiguous() -- O x nOut x 1
      gw:baddbmm(1, gw, scale, goT, colsT)
   end
   self.gradBias:view(nOut, g.O):add(scale, go:sum(1):view(nOut, g.O))
end

function SpatialConvolutionLocal:type(type, tensorCache)
   self.finput = self.finput and torch.Tensor()
   self.fgradInput = self.fgradInput and torch.Tensor()
   return parent.type(self, type, tensorCache)
end

function SpatialConvolutionLocal:__tostring__()
   local s = string.format('%s(%d -> %d, %dx%d, %dx%d', torch.type(self), self.nInputPlane, self.nOutputPlane,
      self.iW, self.iH, self.kW, self.kH)
   if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
      s = s .. string.format(', %d,%d', self.dW, self.dH)
   end
   if self.padW ~= 0 or self.padH ~= 0 then
      s = s .. ', ' .. self.padW .. ',' .. self.padH
   end
   return s .. ')'
end

function SpatialConvolutionLocal:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
   return parent.clearState(self)
end

return SpatialConvolutionLocal
