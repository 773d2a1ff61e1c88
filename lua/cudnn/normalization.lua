-- cudnn's batch normalizations: BatchNormalization, SpatialBatchNormalization and
-- VolumetricBatchNormalization (nFeature[, eps, momentum, affine]), subclasses of nn's with the
-- same fields (running_mean, running_var, save_mean, save_std). cuDNN runs the training passes;
-- evaluation (and what cuDNN cannot take) runs nn's code, as cudnn.torch could not run the
-- backward pass in evaluation at all.
--
-- cuDNN computes the input's and the parameters' gradients in one call, while nn asks for them
-- in two (updateGradInput, then accGradParameters with a scale): the parameters' gradients of
-- the first call wait in the module's side state for the second.

local cudnn = require 'cudnn'
local E = require('cudnn.ffi').enum

local function define(name, mode)
   local class, parent = torch.class('cudnn.' .. name, 'nn.' .. name)

   -- The input's sizes for cuDNN (4 or 5 dimensions) and the parameters' (1 x C x 1 x 1 ...).
   local function shapes(input)
      local s = input:size():totable()
      while #s < 4 do s[#s + 1] = 1 end
      local p = { 1, s[2] }
      for _ = 3, #s do p[#p + 1] = 1 end
      return s, p
   end

   local function viaCudnn(self, input, ...)
      if not self.train or input:dim() ~= self.nDim then return false end
      if (cudnn.version or 0) < 8000 and self.eps < 1e-5 then return false end -- CUDNN_BN_MIN_EPSILON
      if not cudnn.has('cudnnBatchNormalizationForwardTraining') then return false end
      return cudnn.usable(input, self.running_mean, self.running_var, self.weight, self.bias, ...)
         and self.running_mean:isContiguous() and self.running_var:isContiguous()
   end

   -- Scale and shift, ones and zeros for a module without them (affine = false).
   local function params(self, st, x)
      if self.affine then return self.weight, self.bias end
      local C = self.running_mean:nElement()
      if not st.ones or st.ones:nElement() ~= C or torch.type(st.ones) ~= torch.type(x) then
         st.ones, st.zeros = x.new(C):fill(1), x.new(C):zero()
      end
      return st.ones, st.zeros
   end

   function class:updateOutput(input)
      local st = cudnn.state(self)
      st.forward, st.pending = false, nil
      if not viaCudnn(self, input) then return parent.updateOutput(self, input) end
      self:checkInputDim(input)
      self:backCompatibility()
      st.forward = true
      local who = torch.type(self)
      local x = input:contiguous()
      local xs, ps = shapes(x)
      if not self.output:isContiguous() then self.output = self.output.new() end
      self.output:resizeAs(x)
      local C = ps[2]
      self.save_mean = self.save_mean and torch.type(self.save_mean) == torch.type(x) and self.save_mean or x.new()
      self.save_std = self.save_std and torch.type(self.save_std) == torch.type(x) and self.save_std or x.new()
      self.save_mean:resize(C)
      self.save_std:resize(C)
      local scale, bias = params(self, st, x)
      local xd, pd = cudnn.tensorDescriptor(x, xs), cudnn.tensorDescriptor(x, ps)
      cudnn.errcheck(who, 'cudnnBatchNormalizationForwardTraining', cudnn.getHandle(), mode, cudnn.scalar(x, 1),
         cudnn.scalar(x, 0), xd, x:data(), xd, self.output:data(), pd, scale:data(), bias:data(), self.momentum,
         self.running_mean:data(), self.running_var:data(), self.eps, self.save_mean:data(), self.save_std:data())
      return self.output
   end

   -- dx (into `gradInput`) and the parameters' gradients (into the side state).
   local function backward(self, input, gradOutput, gradInput)
      local st = cudnn.state(self)
      local who = torch.type(self)
      local x, g = input:contiguous(), gradOutput:contiguous()
      if g:nElement() ~= x:nElement() then
         error(string.format('%s: gradOutput of %d elements expected, got %d', who, x:nElement(), g:nElement()), 0)
      end
      local xs, ps = shapes(x)
      local C = ps[2]
      st.dScale = st.dScale and torch.type(st.dScale) == torch.type(x) and st.dScale or x.new()
      st.dBias = st.dBias and torch.type(st.dBias) == torch.type(x) and st.dBias or x.new()
      st.dScale:resize(C)
      st.dBias:resize(C)
      local scale = params(self, st, x)
      local xd, pd = cudnn.tensorDescriptor(x, xs), cudnn.tensorDescriptor(x, ps)
      local one, zero = cudnn.scalar(x, 1), cudnn.scalar(x, 0)
      cudnn.errcheck(who, 'cudnnBatchNormalizationBackward', cudnn.getHandle(), mode, one, zero, one, zero, xd,
         x:data(), xd, g:data(), xd, gradInput:data(), pd, scale:data(), st.dScale:data(), st.dBias:data(), self.eps,
         self.save_mean:data(), self.save_std:data())
      st.pending = true
   end

   function class:updateGradInput(input, gradOutput)
      if self.gradInput == nil then return end
      if not cudnn.state(self).forward or not viaCudnn(self, input, gradOutput) then
         return parent.updateGradInput(self, input, gradOutput)
      end
      if not self.gradInput:isContiguous() then self.gradInput = self.gradInput.new() end
      self.gradInput:resizeAs(input)
      backward(self, input, gradOutput, self.gradInput)
      return self.gradInput
   end

   function class:accGradParameters(input, gradOutput, scale)
      if not self.affine then return end
      local st = cudnn.state(self)
      if not st.forward or not viaCudnn(self, input, gradOutput) then
         return parent.accGradParameters(self, input, gradOutput, scale)
      end
      if not st.pending then
         st.scratch = st.scratch or input.new()
         backward(self, input, gradOutput, st.scratch:resizeAs(input))
      end
      st.pending = nil
      scale = scale or 1
      self.gradWeight:add(scale, st.dScale)
      self.gradBias:add(scale, st.dBias)
   end

   return class, parent
end

define('BatchNormalization', E.BATCHNORM_PER_ACTIVATION)
define('SpatialBatchNormalization', E.BATCHNORM_SPATIAL)
define('VolumetricBatchNormalization', E.BATCHNORM_SPATIAL)

return cudnn
