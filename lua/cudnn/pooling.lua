-- cudnn's pooling: SpatialMaxPooling, SpatialAveragePooling, VolumetricMaxPooling,
-- VolumetricAveragePooling (with cudnn.torch's padding arguments), subclasses of their nn
-- namesakes. The geometry comes from the nn module's poolSpec(); what cuDNN's pooling cannot do
-- (ceil mode, dilation, average without `divide`) runs nn's code.

local cudnn = require 'cudnn'
local E = require('cudnn.ffi').enum

local function poolMode(self, spec)
   if not self._average then return E.POOLING_MAX end
   if spec.includePad == false then return E.POOLING_AVERAGE_EXCLUDE_PADDING end
   return E.POOLING_AVERAGE_INCLUDE_PADDING
end

-- Whether cuDNN takes this geometry.
local function supported(self, spec, input)
   if spec.ceil then return false end
   if self._average and self.divide == false then return false end
   for i = 1, spec.n do
      if spec.dil and spec.dil[i] ~= 1 then return false end
   end
   local d = input:dim()
   return d == spec.n + 1 or d == spec.n + 2
end

local descs = setmetatable({}, { __mode = 'k' })

local function poolDescriptor(who, spec, mode)
   local key = mode .. ':' .. table.concat(spec.k, ',') .. ':' .. table.concat(spec.pad, ',') .. ':' ..
      table.concat(spec.d, ',')
   local cache = descs[cudnn] or {}
   descs[cudnn] = cache
   if cache[key] then return cache[key] end
   local ffi = require 'ffi'
   local p = ffi.new('cudnnPoolingDescriptor_t[1]')
   cudnn.errcheck(who, 'cudnnCreatePoolingDescriptor', p)
   local d = ffi.gc(p[0], cudnn.C.cudnnDestroyPoolingDescriptor)
   local ints = function(t) return ffi.new('int[?]', #t, t) end
   cudnn.errcheck(who, 'cudnnSetPoolingNdDescriptor', d, mode, E.PROPAGATE_NAN, spec.n, ints(spec.k),
      ints(spec.pad), ints(spec.d))
   cache[key] = d
   return d
end

local function batchSizes(t, n)
   local sz = t:size():totable()
   if #sz == n + 1 then table.insert(sz, 1, 1) end
   return sz
end

local function define(name, average, init)
   local class, parent = torch.class('cudnn.' .. name, 'nn.' .. name)
   class._average = average
   if init then class.__init = function(self, ...) init(self, parent, ...) end end

   function class:updateOutput(input)
      local who = torch.type(self)
      local spec = self:poolSpec()
      local st = cudnn.state(self)
      st.forward = false
      if not (cudnn.usable(input) and cudnn.has('cudnnPoolingForward') and supported(self, spec, input)) then
         return parent.updateOutput(self, input)
      end
      st.forward = true
      local x = input:contiguous()
      local xsz = batchSizes(x, spec.n)
      local ysz = { xsz[1], xsz[2] }
      for i = 1, spec.n do
         local o = math.floor((xsz[2 + i] + 2 * spec.pad[i] - spec.k[i]) / spec.d[i]) + 1
         if o < 1 then
            error(string.format('%s: input too small (%s) for the window', who, table.concat(xsz, 'x')), 0)
         end
         ysz[#ysz + 1] = o
      end
      if not self.output:isContiguous() then self.output = self.output.new() end
      local y = self.output:resize(unpack(ysz))
      cudnn.errcheck(who, 'cudnnPoolingForward', cudnn.getHandle(), poolDescriptor(who, spec, poolMode(self, spec)),
         cudnn.scalar(x, 1), cudnn.tensorDescriptor(x, xsz), x:data(), cudnn.scalar(x, 0),
         cudnn.tensorDescriptor(x, ysz), y:data())
      if #xsz ~= x:dim() then
         table.remove(ysz, 1)
         self.output = y:view(unpack(ysz))
      end
      return self.output
   end

   function class:updateGradInput(input, gradOutput)
      if self.gradInput == nil then return end
      local who = torch.type(self)
      -- The pass the forward took: max pooling's backward needs what that pass kept.
      if not cudnn.state(self).forward or not cudnn.usable(input, gradOutput, self.output) then
         return parent.updateGradInput(self, input, gradOutput)
      end
      local spec = self:poolSpec()
      local x = input:contiguous()
      local g = gradOutput:contiguous()
      local xsz = batchSizes(x, spec.n)
      local ysz = batchSizes(self.output, spec.n)
      if g:nElement() ~= self.output:nElement() then
         error(string.format('%s: gradOutput of %d elements expected, got %d', who, self.output:nElement(),
            g:nElement()), 0)
      end
      if not self.gradInput:isContiguous() then self.gradInput = self.gradInput.new() end
      self.gradInput:resizeAs(x)
      local xd, yd = cudnn.tensorDescriptor(x, xsz), cudnn.tensorDescriptor(x, ysz)
      cudnn.errcheck(who, 'cudnnPoolingBackward', cudnn.getHandle(), poolDescriptor(who, spec, poolMode(self, spec)),
         cudnn.scalar(x, 1), yd, self.output:contiguous():data(), yd, g:data(), xd, x:data(), cudnn.scalar(x, 0), xd,
         self.gradInput:data())
      return self.gradInput
   end

   return class, parent
end

define('SpatialMaxPooling', false)
define('SpatialAveragePooling', true)
define('VolumetricMaxPooling', false)
-- cudnn.VolumetricAveragePooling(kT, kW, kH, dT, dW, dH, padT, padW, padH): nn's takes no padding
-- (nn's code counts padding in, as cuDNN's INCLUDE_PADDING mode does).
define('VolumetricAveragePooling', true, function(self, parent, kT, kW, kH, dT, dW, dH, padT, padW, padH)
   parent.__init(self, kT, kW, kH, dT, dW, dH)
   self.padT, self.padW, self.padH = padT or 0, padW or 0, padH or 0
end)

return cudnn
