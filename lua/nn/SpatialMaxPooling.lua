-- nn.SpatialMaxPooling(kW, kH[, dW, dH, padW, padH]): the largest value of each kW x kH window
-- moved by dW, dH over each plane of C x H x W images (or a batch); :ceil() rounds the output
-- size up, :floor() down (the default). Padding counts as minus infinity.

local SpatialMaxPooling, parent = torch.class('nn.SpatialMaxPooling', 'nn.Module')

function SpatialMaxPooling:__init(kW, kH, dW, dH, padW, padH)
   parent.__init(self)
   dW = dW or kW
   dH = dH or kH
   self.kW = kW
   self.kH = kH
   self.dW = dW
   self.dH = dH
   self.padW = padW or 0
   self.padH = padH or 0
   self.ceil_mode = false
   self.indices = torch.LongTensor()
end

function SpatialMaxPooling:ceil()
   self.ceil_mode = true
   return self
end

function SpatialMaxPooling:floor()
   self.ceil_mode = false
   return self
end

-- The input as N x C x H x W, and whether it was a batch.
local function batched(input, name)
   if input:dim() == 3 then
      return input:view(1, input:size(1), input:size(2), input:size(3)), false
   elseif input:dim() == 4 then
      return input, true
   end
   error(name .. ': input must be 3D (C x H x W) or 4D (N x C x H x W), got ' .. input:dim() .. 'D')
end

function SpatialMaxPooling:geometry(H, W)
   local oH = nn.im2col.outSize(H, self.kH, self.dH, self.padH, self.ceil_mode)
   local oW = nn.im2col.outSize(W, self.kW, self.dW, self.padW, self.ceil_mode)
   if oH < 1 or oW < 1 then
      error(string.format('%s: input of %dx%d is too small for the %dx%d window', torch.type(self), H, W, self.kH,
         self.kW))
   end
   if self.padW > self.kW / 2 or self.padH > self.kH / 2 then
      error(torch.type(self) .. ': padding must be at most half the window size')
   end
   return oH, oW
end

-- The padded planes (N*C x Hp x Wp) with -inf around, big enough for every window.
local function padded(self, x, oH, oW)
   local NC, H, W = x:size(1), x:size(2), x:size(3)
   local Hp = math.max(H + 2 * self.padH, (oH - 1) * self.dH + self.kH)
   local Wp = math.max(W + 2 * self.padW, (oW - 1) * self.dW + self.kW)
   if Hp == H and Wp == W then return x, Hp, Wp end
   local p = x.new(NC, Hp, Wp):fill(-math.huge)
   p:narrow(2, self.padH + 1, H):narrow(3, self.padW + 1, W):copy(x)
   return p, Hp, Wp
end

function SpatialMaxPooling:updateOutput(input)
   local batch, isBatch = batched(input, torch.type(self))
   local N, C, H, W = batch:size(1), batch:size(2), batch:size(3), batch:size(4)
   local oH, oW = self:geometry(H, W)
   local planes = batch:contiguous():view(N * C, H, W)
   local p, Hp, Wp = padded(self, planes, oH, oW)
   -- N*C x oH x oW x kH x kW windows, flattened per window.
   local win = nn.im2col.windows(p, self.kH, self.kW, self.dH, self.dW, oH, oW)
   local flat = win:contiguous():view(N * C, oH, oW, self.kH * self.kW)
   local values, where = torch.max(flat, 4)
   -- Where each maximum is, as a position in its padded plane (1-based), for the backward pass.
   where = where:view(N * C, oH, oW):add(-1)
   local kh = torch.floor(where:double() / self.kW)
   local kw = where:double() - kh * self.kW
   local rows = torch.range(0, oH - 1):mul(self.dH):view(1, oH, 1):expandAs(kh)
   local cols = torch.range(0, oW - 1):mul(self.dW):view(1, 1, oW):expandAs(kw)
   local pos = (kh + rows) * Wp + kw + cols + 1
   self._padded = { Hp, Wp }
   self.indices = pos:long()
   self.output:resize(N, C, oH, oW):copy(values:view(N, C, oH, oW))
   if not isBatch then
      self.output = self.output:view(C, oH, oW)
   end
   return self.output
end

function SpatialMaxPooling:updateGradInput(input, gradOutput)
   local batch, isBatch = batched(input, torch.type(self))
   local N, C, H, W = batch:size(1), batch:size(2), batch:size(3), batch:size(4)
   local oH, oW = self:geometry(H, W)
   local Hp, Wp = self._padded[1], self._padded[2]
   local g = gradOutput.new(N * C, Hp * Wp):zero()
   g:scatterAdd(2, self.indices:view(N * C, oH * oW), gradOutput:contiguous():view(N * C, oH * oW))
   local grad = g:view(N * C, Hp, Wp):narrow(2, self.padH + 1, H):narrow(3, self.padW + 1, W)
   self.gradInput:resize(N, C, H, W):copy(grad)
   if not isBatch then
      self.gradInput = self.gradInput:view(C, H, W)
   end
   return self.gradInput
end

function SpatialMaxPooling:__tostring__()
   local s = string.format('%s(%dx%d, %d,%d', torch.type(self), self.kW, self.kH, self.dW, self.dH)
   if (self.padW or self.padH) and (self.padW ~= 0 or self.padH ~= 0) then
      s = s .. ', ' .. self.padW .. ',' .. self.padH
   end
   return s .. ')'
end

function SpatialMaxPooling:clearState()
   if self.indices then self.indices:set() end
   self._padded = nil
   return parent.clearState(self)
end

return SpatialMaxPooling
