-- nn.UpSampling(scale[, mode]) or nn.UpSampling({[odepth=,] oheight=, owidth=}, 'linear'):
-- up-sampling of N x C x H x W images or N x C x T x H x W volumes, by 'nearest' neighbour
-- (the default; every element repeated scale times along each dimension) or 'linear'
-- (bilinear / trilinear, corners aligned as in nn.SpatialUpSamplingBilinear), by an integer scale
-- or to the given sizes (linear only).

local resampling = require 'nn.engine.resampling'

local UpSampling, parent = torch.class('nn.UpSampling', 'nn.Module')

function UpSampling:__init(params, mode)
   parent.__init(self)
   if mode == 'linear' or mode == 'bilinear' or mode == 'trilinear' then
      self.mode = 'linear'
   else
      self.mode = 'nearest'
   end
   if torch.type(params) == 'table' then
      if self.mode == 'nearest' then error('nn.UpSampling: nearest-neighbour up-sampling requires a scale_factor') end
      self.odepth, self.owidth, self.oheight = params.odepth, params.owidth, params.oheight
      if self.owidth == nil or self.oheight == nil then
         error('nn.UpSampling: output height and width are required')
      end
   else
      self.scale_factor = params
      if self.scale_factor < 1 then error('nn.UpSampling: scale_factor must be at least 1') end
      if math.floor(self.scale_factor) ~= self.scale_factor then
         error('nn.UpSampling: scale_factor must be an integer')
      end
   end
   self.inputSize = torch.LongStorage(5):fill(0)
   self.outputSize = torch.LongStorage(5):fill(0)
end

function UpSampling:setSize(input)
   local d = input:dim()
   local first = d == 5 and d - 2 or d - 1
   for i = 1, d do
      self.inputSize[i] = input:size(i)
      self.outputSize[i] = input:size(i)
   end
   if self.scale_factor then
      for i = first, d do self.outputSize[i] = input:size(i) * self.scale_factor end
   else
      if d == 5 then
         if not self.odepth then error('nn.UpSampling: no output depth was given for volumetric up-sampling') end
         self.outputSize[d - 2] = self.odepth
      end
      self.outputSize[d - 1] = self.oheight
      self.outputSize[d] = self.owidth
   end
   return first
end

local function rules(self, input)
   local d = input:dim()
   if d ~= 4 and d ~= 5 then error('nn.UpSampling: input must be 4D or 5D', 3) end
   local first = self:setSize(input)
   local dims, r = {}, {}
   for i = first, d do
      dims[#dims + 1] = i
      if self.mode == 'nearest' then
         r[#r + 1] = resampling.nearest(input:size(i), self.scale_factor)
      else
         r[#r + 1] = resampling.linear(input:size(i), self.outputSize[i])
      end
   end
   return dims, r
end

function UpSampling:updateOutput(input)
   local dims, r = rules(self, input)
   local y = resampling.forward(input, dims, r)
   self.output:resizeAs(y):copy(y)
   return self.output
end

function UpSampling:updateGradInput(input, gradOutput)
   if input:dim() ~= gradOutput:dim() then
      error('nn.UpSampling: input and gradOutput must have the same number of dimensions')
   end
   local dims, r = rules(self, input)
   self.gradInput:resizeAs(input):copy(resampling.backward(gradOutput, input:size(), dims, r))
   return self.gradInput
end

function UpSampling:__tostring__()
   if self.scale_factor then
      return string.format('%s(%dx, %s)', torch.type(self), self.scale_factor, self.mode)
   elseif self.odepth then
      return string.format('%s(%dx%dx%d, %s)', torch.type(self), self.odepth, self.oheight, self.owidth, self.mode)
   end
   return string.format('%s(%dx%d, %s)', torch.type(self), self.oheight, self.owidth, self.mode)
end

return UpSampling
