-- cudnn's softmaxes: SoftMax(fastMode), LogSoftMax, SpatialSoftMax(fastMode), SpatialLogSoftMax,
-- and VolumetricSoftMax(fastMode) / VolumetricLogSoftMax (over the planes of N x C x T x H x W,
-- which nn lacks). All run along the dimension nn's softmax takes: the only one of a vector, the
-- second of a batch, the first of C x H x W maps, the second of N x C x H x W (cuDNN's
-- "channel" mode, once the input is seen as N x C x H x W).

local cudnn = require 'cudnn'
local E = require('cudnn.ffi').enum

-- The input's sizes as N x C x H x W for cuDNN (and for the volumetric fallback).
local function as4d(t)
   local s = t:size():totable()
   local d = #s
   if d == 1 then return { 1, s[1], 1, 1 } end
   if d == 2 then return { s[1], s[2], 1, 1 } end
   if d == 3 then return { 1, s[1], s[2], s[3] } end
   if d == 4 then return s end
   if d == 5 then return { s[1], s[2], s[3] * s[4], s[5] } end
end

local function define(name, parentName, log, dims)
   local class, parent = torch.class('cudnn.' .. name, parentName)
   local parentCls = torch.getmetatable(parentName)

   function class:__init(fastMode)
      parentCls.__init(self)
      self.fastMode = fastMode or false
   end

   local function algo(self)
      if log then return E.SOFTMAX_LOG end
      return self.fastMode and E.SOFTMAX_FAST or E.SOFTMAX_ACCURATE
   end

   -- The parent's code on the input seen as 4-D (the volumetric classes), else as it is.
   local function fallback(self, method, input, gradOutput)
      if input:dim() ~= 5 then return parentCls[method](self, input, gradOutput) end
      local sz = as4d(input)
      local x = input:contiguous():view(unpack(sz))
      local g = gradOutput and gradOutput:contiguous():view(unpack(sz))
      if method == 'updateOutput' then
         self.output = parentCls.updateOutput(self, x):view(input:size())
         return self.output
      end
      local saved = self.output
      self.output = saved:view(unpack(sz))
      local gi = parentCls.updateGradInput(self, x, g)
      self.output = saved
      self.gradInput = gi:view(input:size())
      return self.gradInput
   end

   local function viaCudnn(input, ...)
      return cudnn.usable(input, ...) and cudnn.has('cudnnSoftmaxForward') and dims[input:dim()]
   end

   function class:updateOutput(input)
      local who = torch.type(self)
      local st = cudnn.state(self)
      if not viaCudnn(input) then
         st.forward = false
         if not dims[input:dim()] then
            error(string.format('%s: input of %s dimensions expected, got %d', who, dims.text, input:dim()), 0)
         end
         return fallback(self, 'updateOutput', input)
      end
      st.forward = true
      local x = input:contiguous()
      if not self.output:isContiguous() then self.output = self.output.new() end
      self.output:resizeAs(x)
      local d = cudnn.tensorDescriptor(x, as4d(x))
      cudnn.errcheck(who, 'cudnnSoftmaxForward', cudnn.getHandle(), algo(self), E.SOFTMAX_MODE_CHANNEL,
         cudnn.scalar(x, 1), d, x:data(), cudnn.scalar(x, 0), d, self.output:data())
      return self.output
   end

   function class:updateGradInput(input, gradOutput)
      if self.gradInput == nil then return end
      local who = torch.type(self)
      if not cudnn.state(self).forward or not viaCudnn(input, gradOutput, self.output) then
         return fallback(self, 'updateGradInput', input, gradOutput)
      end
      local g = gradOutput:contiguous()
      if g:nElement() ~= self.output:nElement() then
         error(string.format('%s: gradOutput of %d elements expected, got %d', who, self.output:nElement(),
            g:nElement()), 0)
      end
      if not self.gradInput:isContiguous() then self.gradInput = self.gradInput.new() end
      self.gradInput:resizeAs(input)
      local d = cudnn.tensorDescriptor(g, as4d(input))
      cudnn.errcheck(who, 'cudnnSoftmaxBackward', cudnn.getHandle(), algo(self), E.SOFTMAX_MODE_CHANNEL,
         cudnn.scalar(g, 1), d, self.output:data(), d, g:data(), cudnn.scalar(g, 0), d, self.gradInput:data())
      return self.gradInput
   end

   return class, parent
end

local flat = { true, true, true, true, text = '1 to 4' }
local spatial = flat -- nn's spatial softmaxes take what nn.SoftMax takes
local volumetric = { [5] = true, text = '5 (N x C x T x H x W)' }
define('SoftMax', 'nn.SoftMax', false, flat)
define('LogSoftMax', 'nn.LogSoftMax', true, flat)
define('SpatialSoftMax', 'nn.SpatialSoftMax', false, spatial)
define('SpatialLogSoftMax', 'nn.SpatialLogSoftMax', true, spatial)
-- Over the planes, like the spatial ones: nn.SpatialSoftMax's code does the fallback.
define('VolumetricSoftMax', 'nn.SpatialSoftMax', false, volumetric)
define('VolumetricLogSoftMax', 'nn.SpatialLogSoftMax', true, volumetric)

return cudnn
