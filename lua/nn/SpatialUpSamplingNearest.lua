-- nn.SpatialUpSamplingNearest(scale): each pixel of C x H x W images (or a batch; the last two
-- dimensions are height and width) repeated into a scale x scale block:
--   output(u, v) = input(floor((u-1)/scale)+1, floor((v-1)/scale)+1), scale a positive integer.

local resampling = require 'nn.engine.resampling'

local SpatialUpSamplingNearest, parent = torch.class('nn.SpatialUpSamplingNearest', 'nn.Module')

function SpatialUpSamplingNearest:__init(scale)
   parent.__init(self)
   self.scale_factor = scale
   if self.scale_factor < 1 then error('nn.SpatialUpSamplingNearest: scale_factor must be at least 1') end
   if math.floor(self.scale_factor) ~= self.scale_factor then
      error('nn.SpatialUpSamplingNearest: scale_factor must be an integer')
   end
   self.inputSize = torch.LongStorage(4)
   self.outputSize = torch.LongStorage(4)
end

local function rules(self, input)
   local d = input:dim()
   if d ~= 3 and d ~= 4 then error('nn.SpatialUpSamplingNearest: input must be 3D or 4D', 3) end
   for i = 1, d do
      self.inputSize[i] = input:size(i)
      self.outputSize[i] = input:size(i)
   end
   self.outputSize[d - 1] = input:size(d - 1) * self.scale_factor
   self.outputSize[d] = input:size(d) * self.scale_factor
   return { d - 1, d }, {
      resampling.nearest(input:size(d - 1), self.scale_factor), resampling.nearest(input:size(d), self.scale_factor),
   }
end

function SpatialUpSamplingNearest:updateOutput(input)
   local dims, r = rules(self, input)
   local y = resampling.forward(input, dims, r)
   self.output:resizeAs(y):copy(y)
   return self.output
end

function SpatialUpSamplingNearest:updateGradInput(input, gradOutput)
   local dims, r = rules(self, input)
   self.gradInput:resizeAs(input):copy(resampling.backward(gradOutput, input:size(), dims, r))
   return self.gradInput
end

function SpatialUpSamplingNearest:__tostring__()
   return string.format('%s(%d)', torch.type(self), self.scale_factor)
end

return SpatialUpSamplingNearest
