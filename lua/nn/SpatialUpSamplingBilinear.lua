-- nn.SpatialUpSamplingBilinear(scale) or nn.SpatialUpSamplingBilinear({oheight=, owidth=}):
-- bilinear up-sampling of C x H x W images (or a batch) to H*scale x W*scale (scale a positive
-- integer), or to oheight x owidth. The corner pixels of input and output are aligned: output
-- row i (0-based) samples input row i * (H - 1) / (oheight - 1), and columns likewise.

local resampling = require 'nn.engine.resampling'

local SpatialUpSamplingBilinear, parent = torch.class('nn.SpatialUpSamplingBilinear', 'nn.Module')

function SpatialUpSamplingBilinear:__init(params)
   parent.__init(self)
   if torch.type(params) == 'table' then
      self.owidth, self.oheight = params.owidth, params.oheight
      if not self.owidth or not self.oheight then
         error('nn.SpatialUpSamplingBilinear: owidth and oheight are required')
      end
   else
      self.scale_factor = params
      if self.scale_factor < 1 then error('nn.SpatialUpSamplingBilinear: scale_factor must be at least 1') end
      if math.floor(self.scale_factor) ~= self.scale_factor then
         error('nn.SpatialUpSamplingBilinear: scale_factor must be an integer')
      end
   end
   self.inputSize = torch.LongStorage(4)
   self.outputSize = torch.LongStorage(4)
end

function SpatialUpSamplingBilinear:setSize(input)
   local d = input:dim()
   for i = 1, d do
      self.inputSize[i] = input:size(i)
      self.outputSize[i] = input:size(i)
   end
   if self.scale_factor then
      self.outputSize[d - 1] = input:size(d - 1) * self.scale_factor
      self.outputSize[d] = input:size(d) * self.scale_factor
   else
      self.outputSize[d - 1] = self.oheight
      self.outputSize[d] = self.owidth
   end
end

local function rules(self, input)
   local d = input:dim()
   if d ~= 3 and d ~= 4 then error('nn.SpatialUpSamplingBilinear: input must be 3D or 4D', 3) end
   self:setSize(input)
   return { d - 1, d }, {
      resampling.linear(input:size(d - 1), self.outputSize[d - 1]),
      resampling.linear(input:size(d), self.outputSize[d]),
   }
end

function SpatialUpSamplingBilinear:updateOutput(input)
   local dims, r = rules(self, input)
   local y = resampling.forward(input, dims, r)
   self.output:resizeAs(y):copy(y)
   return self.output
end

function SpatialUpSamplingBilinear:updateGradInput(input, gradOutput)
   if input:dim() ~= gradOutput:dim() then
      error('nn.SpatialUpSamplingBilinear: input and gradOutput must have the same number of dimensions')
   end
   local dims, r = rules(self, input)
   self.gradInput:resizeAs(input):copy(resampling.backward(gradOutput, input:size(), dims, r))
   return self.gradInput
end

function SpatialUpSamplingBilinear:__tostring__()
   if self.scale_factor then
      return string.format('%s(%d)', torch.type(self), self.scale_factor)
   end
   return string.format('%s(%d, %d)', torch.type(self), self.oheight, self.owidth)
end

return SpatialUpSamplingBilinear
