-- nn.SpatialConvolution(nInputPlane, nOutputPlane, kW, kH[, dW, dH, padW, padH]): a 2-D
-- convolution over C x H x W images (or a batch N x C x H x W), as one matrix product per image
-- over its columns (im2col). The weight is nOutputPlane x nInputPlane x kH x kW.

local SpatialConvolution, parent = torch.class('nn.SpatialConvolution', 'nn.Module')

function SpatialConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
   parent.__init(self)
   dW = dW or 1
   dH = dH or 1
   self.nInputPlane = nInputPlane
   self.nOutputPlane = nOutputPlane
   self.kW = kW
   self.kH = kH
   self.dW = dW
   self.dH = dH
   self.padW = padW or 0
   self.padH = padH or self.padW
   self.weight = torch.Tensor(nOutputPlane, nInputPlane, kH, kW)
   self.bias = torch.Tensor(nOutputPlane)
   self.gradWeight = torch.Tensor(nOutputPlane, nInputPlane, kH, kW)
   self.gradBias = torch.Tensor(nOutputPlane)
   self:reset()
end

function SpatialConvolution:noBias()
   self.bias = nil
   self.gradBias = nil
   return self
end

function SpatialConvolution:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane)
   end
   self.weight:uniform(-stdv, stdv)
   if self.bias then self.bias:uniform(-stdv, stdv) end
end

-- Older saved models name the padding `padding`.
function SpatialConvolution:backCompatibility()
   if self.padding then
      self.padW = self.padding
      self.padH = self.padding
      self.padding = nil
   end
   self.padW = self.padW or 0
   self.padH = self.padH or 0
end

-- The input as a batch (N x C x H x W), and whether it was one.
local function batched(self, input)
   if input:dim() == 3 then
      return input:view(1, input:size(1), input:size(2), input:size(3)), false
   elseif input:dim() == 4 then
      return input, true
   end
   error('nn.SpatialConvolution: input must be 3D (C x H x W) or 4D (N x C x H x W), got ' .. input:dim()
      .. 'D')
end

local function geometry(self, input)
   if input:size(2) ~= self.nInputPlane then
      error(string.format('nn.SpatialConvolution: input has %d planes, expected %d', input:size(2), self.nInputPlane))
   end
   local H, W = input:size(3), input:size(4)
   local oH = math.floor((H + 2 * self.padH - self.kH) / self.dH) + 1
   local oW = math.floor((W + 2 * self.padW - self.kW) / self.dW) + 1
   if oH < 1 or oW < 1 then
      error(string.format('nn.SpatialConvolution: input of %dx%d is too small for kernel %dx%d with padding %dx%d',
         H, W, self.kH, self.kW, self.padH, self.padW))
   end
   return oH, oW
end

function SpatialConvolution:updateOutput(input)
   self:backCompatibility()
   local batch, isBatch = batched(self, input)
   local oH, oW = geometry(self, batch)
   local N = batch:size(1)
   self.finput = self.finput or input.new()
   local w = self.weight:view(self.nOutputPlane, -1)
   self.output:resize(N, self.nOutputPlane, oH, oW)
   for n = 1, N do
      local cols = nn.im2col.columns(self.finput, batch[n], self.kH, self.kW, self.dH, self.dW, self.padH, self.padW,
         oH, oW)
      local out = self.output[n]:view(self.nOutputPlane, oH * oW)
      out:addmm(0, out, 1, w, cols)
      if self.bias then
         out:add(self.bias:view(-1, 1):expandAs(out))
      end
   end
   if not isBatch then
      self.output = self.output:view(self.nOutputPlane, oH, oW)
   end
   return self.output
end

function SpatialConvolution:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   self:backCompatibility()
   local batch, isBatch = batched(self, input)
   local oH, oW = geometry(self, batch)
   local N = batch:size(1)
   local gradOut = gradOutput:contiguous():view(N, self.nOutputPlane, oH * oW)
   self.gradInput:resizeAs(batch):zero()
   self.fgradInput = self.fgradInput or input.new()
   local w = self.weight:view(self.nOutputPlane, -1)
   for n = 1, N do
      self.fgradInput:resize(w:size(2), oH * oW)
      self.fgradInput:addmm(0, self.fgradInput, 1, w:t(), gradOut[n])
      nn.im2col.addColumns(self.gradInput[n], self.fgradInput, self.kH, self.kW, self.dH, self.dW, self.padH,
         self.padW, oH, oW)
   end
   if not isBatch then
      self.gradInput = self.gradInput:view(input:size())
   end
   return self.gradInput
end

function SpatialConvolution:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   self:backCompatibility()
   local batch = batched(self, input)
   local oH, oW = geometry(self, batch)
   local N = batch:size(1)
   local gradOut = gradOutput:contiguous():view(N, self.nOutputPlane, oH * oW)
   self.finput = self.finput or input.new()
   local gw = self.gradWeight:view(self.nOutputPlane, -1)
   for n = 1, N do
      local cols = nn.im2col.columns(self.finput, batch[n], self.kH, self.kW, self.dH, self.dW, self.padH, self.padW,
         oH, oW)
      gw:addmm(scale, gradOut[n], cols:t())
      if self.bias then
         self.gradBias:add(scale, gradOut[n]:sum(2):view(-1))
      end
   end
end

function SpatialConvolution:type(type, tensorCache)
   self.finput = self.finput and torch.Tensor()
   self.fgradInput = self.fgradInput and torch.Tensor()
   return parent.type(self, type, tensorCache)
end

function SpatialConvolution:__tostring__()
   local s = string.format('%s(%d -> %d, %dx%d', torch.type(self), self.nInputPlane, self.nOutputPlane, self.kW,
      self.kH)
   if self.dW ~= 1 or self.dH ~= 1 or self.padW ~= 0 or self.padH ~= 0 then
      s = s .. string.format(', %d,%d', self.dW, self.dH)
   end
   if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
      s = s .. ', ' .. self.padW .. ',' .. self.padH
   end
   if self.bias then
      return s .. ')'
   end
   return s .. ') without bias'
end

function SpatialConvolution:clearState()
   nn.utils.clear(self, 'finput', 'fgradInput', '_input', '_gradOutput')
   return parent.clearState(self)
end

return SpatialConvolution
