-- cudnn's pointwise activations: ReLU(inplace), Tanh(inplace), Sigmoid(inplace) and
-- ClippedReLU(ceiling, inplace) = min(max(x, 0), ceiling), subclasses of nn.ReLU, nn.Tanh,
-- nn.Sigmoid and nn.HardTanh(0, ceiling). cuDNN sees any contiguous tensor as one long row.

local cudnn = require 'cudnn'
local ffi = require 'ffi'
local E = require('cudnn.ffi').enum

local activationDescs = {}

local function activationDescriptor(who, mode, coef)
   local key = mode .. ':' .. coef
   if activationDescs[key] then return activationDescs[key] end
   local p = ffi.new('cudnnActivationDescriptor_t[1]')
   cudnn.errcheck(who, 'cudnnCreateActivationDescriptor', p)
   local d = ffi.gc(p[0], cudnn.C.cudnnDestroyActivationDescriptor)
   cudnn.errcheck(who, 'cudnnSetActivationDescriptor', d, mode, E.PROPAGATE_NAN, coef)
   activationDescs[key] = d
   return d
end

local function flat(t) return cudnn.tensorDescriptor(t, { 1, 1, 1, t:nElement() }) end

local function define(name, parentName, mode, coefOf, applies)
   local class, parent = torch.class('cudnn.' .. name, parentName)
   local parentCls = torch.getmetatable(parentName)

   local function viaCudnn(self, ...)
      return cudnn.usable(...) and cudnn.has('cudnnActivationForward') and (not applies or applies(self))
   end

   function class:updateOutput(input)
      local who = torch.type(self)
      local st = cudnn.state(self)
      if not viaCudnn(self, input) or not input:isContiguous() then
         st.forward = false
         -- nn.Tanh and nn.Sigmoid have no in-place mode: the input takes the result after.
         local out = parentCls.updateOutput(self, input)
         if self.inplace and out ~= input and not rawequal(out, input) then
            input:copy(out)
            self.output = input
         end
         return self.output
      end
      st.forward = true
      if self.inplace then
         self.output = input
      else
         if not self.output:isContiguous() then self.output = self.output.new() end
         self.output:resizeAs(input)
      end
      local d = flat(input)
      cudnn.errcheck(who, 'cudnnActivationForward', cudnn.getHandle(), activationDescriptor(who, mode, coefOf(self)),
         cudnn.scalar(input, 1), d, input:data(), cudnn.scalar(input, 0), d, self.output:data())
      return self.output
   end

   function class:updateGradInput(input, gradOutput)
      if self.gradInput == nil then return end
      local who = torch.type(self)
      if not cudnn.state(self).forward or not viaCudnn(self, input, gradOutput, self.output) then
         return parentCls.updateGradInput(self, input, gradOutput)
      end
      local g = gradOutput:contiguous()
      if g:nElement() ~= input:nElement() then
         error(string.format('%s: gradOutput of %d elements expected, got %d', who, input:nElement(), g:nElement()), 0)
      end
      if self.inplace then
         self.gradInput = g
      else
         if not self.gradInput:isContiguous() then self.gradInput = self.gradInput.new() end
         self.gradInput:resizeAs(input)
      end
      -- In place, x was overwritten by y; each of these gradients reads the same from y.
      local d = flat(input)
      cudnn.errcheck(who, 'cudnnActivationBackward', cudnn.getHandle(), activationDescriptor(who, mode, coefOf(self)),
         cudnn.scalar(input, 1), d, self.output:data(), d, g:data(), d, input:data(), cudnn.scalar(input, 0), d,
         self.gradInput:data())
      if self.inplace and g ~= gradOutput then gradOutput:copy(g) self.gradInput = gradOutput end
      return self.gradInput
   end

   return class, parent
end

-- cuDNN's ReLU is nn.Threshold(0, 0): a converted Threshold with other values runs nn's code.
local relu = define('ReLU', 'nn.ReLU', E.ACTIVATION_RELU, function() return 0 end,
   function(self) return (self.threshold or 0) == 0 and (self.val or 0) == 0 end)

local tanh = define('Tanh', 'nn.Tanh', E.ACTIVATION_TANH, function() return 0 end)
function tanh:__init(inplace)
   nn.Tanh.__init(self)
   self.inplace = inplace or false
end

local sigmoid = define('Sigmoid', 'nn.Sigmoid', E.ACTIVATION_SIGMOID, function() return 0 end)
function sigmoid:__init(inplace)
   nn.Sigmoid.__init(self)
   self.inplace = inplace or false
end

local clipped = define('ClippedReLU', 'nn.HardTanh', E.ACTIVATION_CLIPPED_RELU,
   function(self) return self.max_val end,
   function(self) return self.min_val == 0 end)
function clipped:__init(ceiling, inplace)
   cudnn.checkArg(type(ceiling) == 'number' and ceiling > 0, 'cudnn.ClippedReLU',
      'a positive ceiling expected, got %s', tostring(ceiling))
   nn.HardTanh.__init(self, 0, ceiling, inplace)
   self.ceiling = ceiling
end

local _ = relu
return cudnn
