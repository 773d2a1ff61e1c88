-- nn.SpatialFullConvolutionMap(connTable, kW, kH[, dW, dH]): the transposed 2-D convolution of
-- nn.SpatialFullConvolution with only the connections listed in connTable (nKernel x 2: kernel
-- k maps input plane connTable[k][1] into output plane connTable[k][2]); the output is
-- (H - 1) * dH + kH by (W - 1) * dW + kW. See nn.SpatialConvolutionMap for the tables.

local convolution = require 'nn.engine.convolution'

require 'nn.SpatialConvolutionMap'
local SpatialFullConvolutionMap, parent = torch.class('nn.SpatialFullConvolutionMap', 'nn.Module')

function SpatialFullConvolutionMap:__init(conMatrix, kW, kH, dW, dH)
   parent.__init(self)
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or 1, dH or 1
   self.connTable = conMatrix
   self.nInputPlane = self.connTable:select(2, 1):max()
   self.nOutputPlane = self.connTable:select(2, 2):max()
   self.weight = torch.Tensor(self.connTable:size(1), kH, kW)
   self.gradWeight = torch.Tensor(self.connTable:size(1), kH, kW)
   self.bias = torch.Tensor(self.nOutputPlane)
   self.gradBias = torch.Tensor(self.nOutputPlane)
   self:reset()
end

SpatialFullConvolutionMap.reset = nn.SpatialConvolutionMap.reset

function SpatialFullConvolutionMap:convSpec()
   return {
      n = 2, nIn = self.nInputPlane, nOut = self.nOutputPlane, k = { self.kH, self.kW }, d = { self.dH, self.dW },
      pad = { 0, 0 }, dil = { 1, 1 }, adj = { 0, 0 },
   }
end

-- The dense nInputPlane x (nOutputPlane*kH*kW) weight; for a gradient, a zero one.
function SpatialFullConvolutionMap:convWeights(w, forGradient)
   local K = self.kH * self.kW
   local dense = w.new(self.nInputPlane * self.nOutputPlane, K):zero()
   if not forGradient then
      local rows = nn.SpatialConvolutionMap.denseRows(self.connTable, 1, 2, self.nOutputPlane)
      dense:indexAdd(1, rows, w:contiguous():view(-1, K))
   end
   return { dense:view(self.nInputPlane, -1) }
end

function SpatialFullConvolutionMap:convGradDone(dense)
   local K = self.kH * self.kW
   local rows = nn.SpatialConvolutionMap.denseRows(self.connTable, 1, 2, self.nOutputPlane)
   self.gradWeight:view(-1, K):add(dense[1]:view(-1, K):index(1, rows))
end

function SpatialFullConvolutionMap:updateOutput(input)
   return convolution.fullForward(self, input)
end

function SpatialFullConvolutionMap:updateGradInput(input, gradOutput)
   return convolution.fullGradInput(self, input, gradOutput)
end

function SpatialFullConvolutionMap:accGradParameters(input, gradOutput, scale)
   return convolution.fullAccGrad(self, input, gradOutput, scale)
end

function SpatialFullConvolutionMap:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput')
   return parent.clearState(self)
end

return SpatialFullConvolutionMap
