-- nn.SpatialConvolutionMap(connTable, kW, kH[, dW, dH]): a 2-D convolution in which only some
-- input planes feed each output plane. connTable is nKernel x 2: row k says kernel k (weight[k],
-- kH x kW) maps input plane connTable[k][1] into output plane connTable[k][2]. The nn.tables
-- functions make the usual tables (full, one to one, random fan-in).
--
-- The kernels are laid into a dense nOutputPlane x nInputPlane weight (zeros where nothing is
-- connected) so that the convolution is the shared matrix-product one.

local convolution = require 'nn.engine.convolution'

local SpatialConvolutionMap, parent = torch.class('nn.SpatialConvolutionMap', 'nn.Module')

nn.tables = nn.tables or {}

-- Every input plane to every output plane (nin*nout rows, the input changing fastest).
function nn.tables.full(nin, nout)
   local t = torch.Tensor(nin * nout, 2)
   local row = 0
   for o = 1, nout do
      for i = 1, nin do
         row = row + 1
         t[row][1], t[row][2] = i, o
      end
   end
   return t
end

-- Plane i to plane i.
function nn.tables.oneToOne(nfeat)
   local t = torch.Tensor(nfeat, 2)
   for i = 1, nfeat do
      t[i][1], t[i][2] = i, i
   end
   return t
end

-- nto distinct input planes, drawn at random, for each of the nout output planes (rows grouped
-- by output plane). Inputs are dealt from shuffled decks of the nin planes, so that they are used
-- about equally often.
function nn.tables.random(nin, nout, nto)
   assert(nto >= 1 and nto <= nin, 'nn.tables.random: the fan-in must be between 1 and the number of inputs')
   local t = torch.Tensor(nout * nto, 2)
   local deck, at = torch.randperm(nin), 0
   local hands = math.floor(nin / nto)
   local row = 0
   for o = 1, nout do
      if at == hands then
         deck, at = torch.randperm(nin), 0
      end
      for i = 1, nto do
         row = row + 1
         t[row][1], t[row][2] = deck[at * nto + i], o
      end
      at = at + 1
   end
   return t
end

function SpatialConvolutionMap:__init(conMatrix, kW, kH, dW, dH)
   parent.__init(self)
   self.kW, self.kH = kW, kH
   self.dW, self.dH = dW or 1, dH or 1
   self.connTable = conMatrix
   self.nInputPlane = self.connTable:select(2, 1):max()
   self.nOutputPlane = self.connTable:select(2, 2):max()
   self.weight = torch.Tensor(self.connTable:size(1), kH, kW)
   self.bias = torch.Tensor(self.nOutputPlane)
   self.gradWeight = torch.Tensor(self.connTable:size(1), kH, kW)
   self.gradBias = torch.Tensor(self.nOutputPlane)
   self:reset()
end

-- Without stdv, each kernel and bias is drawn in +-1/sqrt(fan-in of its output plane).
function SpatialConvolutionMap:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
      self.weight:uniform(-stdv, stdv)
      self.bias:uniform(-stdv, stdv)
      return
   end
   local fanIn = torch.zeros(self.nOutputPlane)
   for k = 1, self.connTable:size(1) do
      local o = self.connTable[k][2]
      fanIn[o] = fanIn[o] + 1
   end
   for k = 1, self.connTable:size(1) do
      local s = 1 / math.sqrt(self.kW * self.kH * fanIn[self.connTable[k][2]])
      self.weight[k]:uniform(-s, s)
   end
   for o = 1, self.nOutputPlane do
      local s = 1 / math.sqrt(self.kW * self.kH * math.max(1, fanIn[o]))
      self.bias[o] = torch.uniform(-s, s)
   end
end

-- The row of each kernel in the dense (planeA * planeB) x kH*kW weight, planeA the slower one.
function SpatialConvolutionMap.denseRows(connTable, slow, fast, nFast)
   local rows = torch.LongTensor(connTable:size(1))
   for k = 1, connTable:size(1) do
      rows[k] = (connTable[k][slow] - 1) * nFast + connTable[k][fast]
   end
   return rows
end

function SpatialConvolutionMap:convSpec()
   return {
      n = 2, nIn = self.nInputPlane, k = { self.kH, self.kW }, d = { self.dH, self.dW }, pad = { 0, 0 },
      dil = { 1, 1 },
   }
end

-- The dense nOutputPlane x (nInputPlane*kH*kW) weight; for a gradient, a zero one to accumulate in.
function SpatialConvolutionMap:convWeights(w, forGradient)
   local K = self.kH * self.kW
   local dense = w.new(self.nOutputPlane * self.nInputPlane, K):zero()
   if not forGradient then
      local rows = SpatialConvolutionMap.denseRows(self.connTable, 2, 1, self.nInputPlane)
      dense:indexAdd(1, rows, w:contiguous():view(-1, K))
   end
   return { dense:view(self.nOutputPlane, -1) }
end

function SpatialConvolutionMap:convGradDone(dense)
   local K = self.kH * self.kW
   local rows = SpatialConvolutionMap.denseRows(self.connTable, 2, 1, self.nInputPlane)
   self.gradWeight:view(-1, K):add(dense[1]:view(-1, K):index(1, rows))
end

-- The input planes the table reads: a table need not name the last planes of its input (a
-- random one may leave them out), which then have no effect and get a zero gradient.
local function usedPlanes(self, input)
   local planeDim = input:dim() == 4 and 2 or 1
   if input:dim() >= 3 and input:size(planeDim) > self.nInputPlane then
      return input:narrow(planeDim, 1, self.nInputPlane), planeDim
   end
   return input
end

function SpatialConvolutionMap:updateOutput(input)
   return convolution.moduleForward(self, usedPlanes(self, input))
end

function SpatialConvolutionMap:updateGradInput(input, gradOutput)
   local used, planeDim = usedPlanes(self, input)
   local gradInput = convolution.moduleGradInput(self, used, gradOutput)
   if planeDim and gradInput then
      self._gradUsed = gradInput
      self.gradInput = input.new():resizeAs(input):zero()
      self.gradInput:narrow(planeDim, 1, self.nInputPlane):copy(gradInput)
   end
   return self.gradInput
end

function SpatialConvolutionMap:accGradParameters(input, gradOutput, scale)
   return convolution.moduleAccGrad(self, usedPlanes(self, input), gradOutput, scale)
end

function SpatialConvolutionMap:decayParameters(decay)
   self.weight:add(-decay, self.weight)
   self.bias:add(-decay, self.bias)
end

function SpatialConvolutionMap:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_gradUsed')
   return parent.clearState(self)
end

return SpatialConvolutionMap
