-- nn.SpatialReflectionPadding(pad_l[, pad_r, pad_t, pad_b]): pads each plane of C x H x W images
-- (or a batch) on the left, right, top and bottom (pad_l on every side not given) with the input
-- mirrored about its edge rows and columns (the edge itself not repeated); each padding must be
-- smaller than the input. A negative padding crops.

local resampling = require 'nn.engine.resampling'

local SpatialReflectionPadding, parent = torch.class('nn.SpatialReflectionPadding', 'nn.Module')

function SpatialReflectionPadding:__init(pad_l, pad_r, pad_t, pad_b)
   parent.__init(self)
   self.pad_l = pad_l
   self.pad_r = pad_r or self.pad_l
   self.pad_t = pad_t or self.pad_l
   self.pad_b = pad_b or self.pad_l
end

-- The dimensions padded (height, width) and their rules.
local function rules(self, input)
   local d = input:dim()
   if d ~= 3 and d ~= 4 then error('nn.SpatialReflectionPadding: input must be 3 or 4-dimensional', 3) end
   local H, W = input:size(d - 1), input:size(d)
   if H + self.pad_t + self.pad_b < 1 or W + self.pad_l + self.pad_r < 1 then
      error('nn.SpatialReflectionPadding: the output would be empty', 3)
   end
   if self.pad_t >= H or self.pad_b >= H or self.pad_l >= W or self.pad_r >= W then
      error(string.format(
         'nn.SpatialReflectionPadding: padding (%d, %d, %d, %d) must be smaller than the input (%dx%d)', self.pad_l,
         self.pad_r, self.pad_t, self.pad_b, H, W), 3)
   end
   return { d - 1, d }, {
      resampling.pad(H, self.pad_t, self.pad_b, 'reflect'), resampling.pad(W, self.pad_l, self.pad_r, 'reflect'),
   }
end

function SpatialReflectionPadding:updateOutput(input)
   local dims, r = rules(self, input)
   local y = resampling.forward(input, dims, r)
   self.output:resizeAs(y):copy(y)
   return self.output
end

function SpatialReflectionPadding:updateGradInput(input, gradOutput)
   local dims, r = rules(self, input)
   local d = input:dim()
   if gradOutput:dim() ~= d or gradOutput:size(d - 1) ~= r[1].a:size(1) or gradOutput:size(d) ~= r[2].a:size(1) then
      error('nn.SpatialReflectionPadding: input and gradOutput must be compatible in size')
   end
   self.gradInput:resizeAs(input):copy(resampling.backward(gradOutput, input:size(), dims, r))
   return self.gradInput
end

function SpatialReflectionPadding:__tostring__()
   return torch.type(self) .. string.format('(l=%d, r=%d, t=%d, b=%d)', self.pad_l, self.pad_r, self.pad_t,
      self.pad_b)
end

return SpatialReflectionPadding
