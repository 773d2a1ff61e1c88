-- nn.SpatialReSampling{owidth=, oheight=} (or {rwidth=, rheight=}, ratios of the input's size):
-- nnx's bilinear resampling of each plane of a C x H x W input (or a batch of them) to
-- C x oheight x owidth. Output pixel x sits at input position x * (iwidth-1)/(owidth-1), as in
-- nnx, and takes its two neighbours on each axis (the last one repeated at the edge).
--
-- The weights are separable, so each axis is one matrix (o x i) and a plane is resampled as
-- Wy * plane * Wx^T: two matrix products instead of a loop over pixels, and the backward pass is
-- the transposed products.
local SpatialReSampling, parent = torch.class('nn.SpatialReSampling', 'nn.Module')

function SpatialReSampling:__init(args, oheight, rwidth, rheight)
   parent.__init(self)
   if type(args) ~= 'table' then
      args = { owidth = args, oheight = oheight, rwidth = rwidth, rheight = rheight }
   end
   self.owidth, self.oheight = args.owidth, args.oheight
   self.rwidth, self.rheight = args.rwidth, args.rheight
   if not ((self.owidth or self.rwidth) and (self.oheight or self.rheight)) then
      error('nn.SpatialReSampling: give {owidth=, oheight=} or {rwidth=, rheight=}', 3)
   end
end

-- The o x i matrix of one axis's bilinear weights.
local function axisWeights(Tensor, o, i)
   local w = Tensor(o, i):zero()
   local ratio = o > 1 and (i - 1) / (o - 1) or 0
   for k = 1, o do
      local at = ratio * (k - 1)
      local low = math.floor(at)
      local frac = at - low
      w[k][low + 1] = w[k][low + 1] + (1 - frac)
      local high = math.min(low + 1, i - 1)
      w[k][high + 1] = w[k][high + 1] + frac
   end
   return w
end

-- The output size is the module's own unless `oh`, `ow` are given: the backward pass takes them
-- from gradOutput, as nnx's C loops do, so a gradOutput of another size than the module's output
-- (dpnn's SpatialGlimpse test passes one) is resampled back all the same.
function SpatialReSampling:weights(input, oh, ow)
   local d = input:dim()
   if d ~= 3 and d ~= 4 then
      error('nn.SpatialReSampling: input must be 3D (planes x height x width) or 4D (batch x planes x height x width), got '
         .. d .. 'D', 3)
   end
   local ih, iw = input:size(d - 1), input:size(d)
   oh = oh or self.oheight or math.floor(self.rheight * ih)
   ow = ow or self.owidth or math.floor(self.rwidth * iw)
   if oh < 1 or ow < 1 then error('nn.SpatialReSampling: the output size must be at least 1x1', 3) end
   local key = table.concat({ input:type(), ih, iw, oh, ow }, ' ')
   if self._key ~= key then
      self._wy, self._wx = axisWeights(input.new, oh, ih), axisWeights(input.new, ow, iw)
      self._key = key
   end
   return self._wy, self._wx, oh, ow
end

-- The input's planes as one P x H x W tensor (P = batch * planes).
local function planes(t)
   local d = t:dim()
   return t:contiguous():view(-1, t:size(d - 1), t:size(d))
end

function SpatialReSampling:updateOutput(input)
   local wy, wx, oh, ow = self:weights(input)
   local x = planes(input)
   local P = x:size(1)
   -- Wy * plane for every plane at once: (oh x ih) * (ih x (P*iw)) after moving P beside W.
   local rows = torch.mm(wy, x:transpose(1, 2):contiguous():view(x:size(2), -1))
   rows = rows:view(oh, P, x:size(3)):transpose(1, 2):contiguous():view(P * oh, x:size(3))
   local out = torch.mm(rows, wx:t())
   local size = input:size()
   size[input:dim() - 1], size[input:dim()] = oh, ow
   self.output:resize(size):copy(out:view(size))
   return self.output
end

function SpatialReSampling:updateGradInput(input, gradOutput)
   local d = gradOutput:dim()
   if d ~= input:dim() then
      error('nn.SpatialReSampling: gradOutput must have as many dimensions as the input', 2)
   end
   local wy, wx = self:weights(input, gradOutput:size(d - 1), gradOutput:size(d))
   local g = planes(gradOutput)
   local P, oh = g:size(1), g:size(2)
   local cols = torch.mm(g:view(P * oh, g:size(3)), wx):view(P, oh, wx:size(2))
   local back = torch.mm(wy:t(), cols:transpose(1, 2):contiguous():view(oh, -1))
   back = back:view(wy:size(2), P, wx:size(2)):transpose(1, 2)
   self.gradInput:resizeAs(input):copy(back:contiguous():viewAs(input))
   return self.gradInput
end

function SpatialReSampling:__tostring__()
   if self.owidth then
      return string.format('%s(%dx%d)', torch.type(self), self.owidth, self.oheight)
   end
   return string.format('%s(x%g, x%g)', torch.type(self), self.rwidth, self.rheight)
end
