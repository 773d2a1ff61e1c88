-- cudnn's convolutions: SpatialConvolution (with cudnn.torch's `groups`), SpatialDilatedConvolution,
-- SpatialFullConvolution, VolumetricConvolution, VolumetricDilatedConvolution and
-- VolumetricFullConvolution, each a subclass of its nn namesake. One set of functions serves all:
-- a module only says its geometry (spec). A full (transposed) convolution is the backward-data
-- pass of the convolution with the same weight, and its gradient the forward pass.

local cudnn = require 'cudnn'

-- The geometry of module `m` in tensor order (time, height, width).
local function spec(m)
   local nd = m.kT and 3 or 2
   local s = { nd = nd, groups = m.groups or 1, transposed = m._transposed or false }
   if nd == 2 then
      s.k, s.stride, s.pad = { m.kH, m.kW }, { m.dH, m.dW }, { m.padH or 0, m.padW or 0 }
      s.dil = { m.dilationH or 1, m.dilationW or 1 }
      s.adj = { m.adjH or 0, m.adjW or 0 }
   else
      s.k, s.stride = { m.kT, m.kH, m.kW }, { m.dT, m.dH, m.dW }
      s.pad = { m.padT or 0, m.padH or 0, m.padW or 0 }
      s.dil = { m.dilationT or 1, m.dilationH or 1, m.dilationW or 1 }
      s.adj = { m.adjT or 0, m.adjH or 0, m.adjW or 0 }
   end
   -- The filter as cuDNN sees it: K x C/groups x k... (for a transposed one, K is the
   -- transposed module's input planes).
   if s.transposed then
      s.filter = { m.nInputPlane, m.nOutputPlane / s.groups }
   else
      s.filter = { m.nOutputPlane, m.nInputPlane / s.groups }
   end
   for _, k in ipairs(s.k) do s.filter[#s.filter + 1] = k end
   return s
end

-- The input as a batch (contiguous) and whether it was one.
local function asBatch(self, input, s, who)
   local d = input:dim()
   if d ~= s.nd + 1 and d ~= s.nd + 2 then
      error(string.format('%s: %dD or %dD (batch) input expected, got %dD', who, s.nd + 1, s.nd + 2, d), 0)
   end
   local x = input:contiguous()
   local batch = d == s.nd + 2
   if not batch then x = x:view(1, unpack(x:size():totable())) end
   return x, batch
end

-- The output sizes (N x C x ...) of the module for batch input sizes `insz`.
local function outSizes(self, s, insz, who)
   local out = { insz[1], self.nOutputPlane }
   for i = 1, s.nd do
      local n = insz[2 + i]
      local o
      if s.transposed then
         o = (n - 1) * s.stride[i] - 2 * s.pad[i] + s.dil[i] * (s.k[i] - 1) + 1 + s.adj[i]
      else
         o = math.floor((n + 2 * s.pad[i] - s.dil[i] * (s.k[i] - 1) - 1) / s.stride[i]) + 1
      end
      if o < 1 then
         error(string.format('%s: input too small (%s) for the kernel: output size %d', who,
            table.concat(insz, 'x'), o), 0)
      end
      out[#out + 1] = o
   end
   return out
end

local function unbatch(t, batch)
   if batch then return t end
   local sz = t:size():totable()
   table.remove(sz, 1)
   return t:view(unpack(sz))
end

-- Whether the cuDNN path takes this module and these tensors.
local function viaCudnn(self, ...)
   if not cudnn.usable(self.weight, ...) then return false end
   if self.bias and not cudnn.usable(self.weight, self.bias) then return false end
   return true
end

local function checkPlanes(self, x, s, who)
   local want = self.nInputPlane
   if x:size(2) ~= want then
      error(string.format('%s: input with %d planes expected, got %d', who, want, x:size(2)), 0)
   end
end

-- The descriptors of one call: x (the module's input side), y (its output side), w, conv.
local function descriptors(self, s, x, ysz)
   local xd = cudnn.tensorDescriptor(x, x:size():totable())
   local yd = cudnn.tensorDescriptor(x, ysz)
   local wd = cudnn.filterDescriptor(self.weight, s.filter)
   local cd = cudnn.convolutionDescriptor(x, s.pad, s.stride, s.dil, s.groups)
   local key = table.concat(x:size():totable(), 'x') .. '|' .. table.concat(ysz, 'x') .. '|' ..
      table.concat(s.filter, 'x') .. '|' .. table.concat(s.pad, ',') .. '|' .. table.concat(s.stride, ',') .. '|' ..
      table.concat(s.dil, ',') .. '|' .. s.groups .. '|' .. tostring(cudnn.allowTF32) .. '|' .. torch.type(x) .. '|' ..
      tostring(s.transposed)
   return xd, yd, wd, cd, key
end

-- y = conv(x, w) (forward pass of a convolution): x is the convolution's input side.
local function convForward(who, s, self, xd, x, wd, w, cd, yd, y, key, beta)
   local algo, bytes = cudnn.algorithm(who, 'forward', key, xd, wd, cd, yd)
   local ws, wsBytes = cudnn.getSharedWorkspace(bytes)
   cudnn.errcheck(who, 'cudnnConvolutionForward', cudnn.getHandle(), cudnn.scalar(x, 1), xd, x:data(), wd, w:data(),
      cd, algo, ws, wsBytes, cudnn.scalar(x, beta or 0), yd, y:data())
end

-- dx = conv^T(dy, w) (backward-data pass): dy is the convolution's output side.
local function convBackwardData(who, s, self, wd, w, dyd, dy, cd, dxd, dx, key)
   local algo, bytes = cudnn.algorithm(who, 'backwardData', key, wd, dyd, cd, dxd)
   local ws, wsBytes = cudnn.getSharedWorkspace(bytes)
   cudnn.errcheck(who, 'cudnnConvolutionBackwardData', cudnn.getHandle(), cudnn.scalar(dy, 1), wd, w:data(), dyd,
      dy:data(), cd, algo, ws, wsBytes, cudnn.scalar(dy, 0), dxd, dx:data())
end

local function addBias(who, self, yd, y, nOut, nd)
   if not self.bias then return end
   local sz = { 1, nOut }
   for _ = 1, nd do sz[#sz + 1] = 1 end
   local bd = cudnn.tensorDescriptor(self.bias, sz)
   cudnn.errcheck(who, 'cudnnAddTensor', cudnn.getHandle(), cudnn.scalar(y, 1), bd, self.bias:data(),
      cudnn.scalar(y, 1), yd, y:data())
end

local function freshOutput(t)
   if not t:isContiguous() then return t.new() end
   return t
end

local function cudnnUpdateOutput(self, input)
   local who = torch.type(self)
   local s = spec(self)
   local x, batch = asBatch(self, input, s, who)
   checkPlanes(self, x, s, who)
   local ysz = outSizes(self, s, x:size():totable(), who)
   self.output = freshOutput(self.output)
   local y = self.output:resize(unpack(ysz))
   local w = self.weight:contiguous()
   local xd, yd, wd, cd, key = descriptors(self, s, x, ysz)
   if s.transposed then
      -- The transposed module's input is the convolution's output side.
      convBackwardData(who, s, self, wd, w, xd, x, cd, yd, y, key)
   else
      convForward(who, s, self, xd, x, wd, w, cd, yd, y, key)
   end
   addBias(who, self, yd, y, self.nOutputPlane, s.nd)
   self.output = unbatch(y, batch)
   return self.output
end

local function cudnnUpdateGradInput(self, input, gradOutput)
   local who = torch.type(self)
   local s = spec(self)
   local x, batch = asBatch(self, input, s, who)
   local g = gradOutput:contiguous()
   if not batch then g = g:view(1, unpack(g:size():totable())) end
   local ysz = outSizes(self, s, x:size():totable(), who)
   if table.concat(g:size():totable(), 'x') ~= table.concat(ysz, 'x') then
      error(string.format('%s: gradOutput of size %s expected, got %s', who, table.concat(ysz, 'x'),
         table.concat(g:size():totable(), 'x')), 0)
   end
   self.gradInput = freshOutput(self.gradInput)
   local gi = self.gradInput:resize(x:size())
   local w = self.weight:contiguous()
   local xd, yd, wd, cd, key = descriptors(self, s, x, ysz)
   if s.transposed then
      convForward(who, s, self, yd, g, wd, w, cd, xd, gi, key)
   else
      convBackwardData(who, s, self, wd, w, yd, g, cd, xd, gi, key)
   end
   self.gradInput = unbatch(gi, batch)
   return self.gradInput
end

local function cudnnAccGradParameters(self, input, gradOutput, scale)
   local who = torch.type(self)
   scale = scale or 1
   local s = spec(self)
   local x, batch = asBatch(self, input, s, who)
   local g = gradOutput:contiguous()
   if not batch then g = g:view(1, unpack(g:size():totable())) end
   local ysz = outSizes(self, s, x:size():totable(), who)
   local xd, yd, wd, cd, key = descriptors(self, s, x, ysz)
   local h = cudnn.getHandle()
   -- Gradients accumulate (beta = 1), scaled by `scale`, as nn's do.
   local alpha, one = cudnn.scalar(x, scale), cudnn.scalar(x, 1)
   if self.gradWeight then
      local convIn, convInD, convOut, convOutD = x, xd, g, yd
      if s.transposed then convIn, convInD, convOut, convOutD = g, yd, x, xd end
      local algo, bytes = cudnn.algorithm(who, 'backwardFilter', key, convInD, convOutD, cd, wd)
      local ws, wsBytes = cudnn.getSharedWorkspace(bytes)
      cudnn.errcheck(who, 'cudnnConvolutionBackwardFilter', cudnn.getHandle(), alpha, convInD, convIn:data(),
         convOutD, convOut:data(), cd, algo, ws, wsBytes, one, wd, self.gradWeight:data())
   end
   if self.gradBias then
      local sz = { 1, self.nOutputPlane }
      for _ = 1, s.nd do sz[#sz + 1] = 1 end
      local bd = cudnn.tensorDescriptor(self.gradBias, sz)
      cudnn.errcheck(who, 'cudnnConvolutionBackwardBias', h, alpha, yd, g:data(), one, bd, self.gradBias:data())
   end
end

---------------------------------------------------------------------------------------------------
-- Groups without cuDNN: nn has no grouped convolution, so each group runs as a plain nn module
-- over its slice of the planes and of the weight.

local function groupProxies(self, parentName)
   local G = self.groups
   local proxies = {}
   local inPer, outPer = self.nInputPlane / G, self.nOutputPlane / G
   for g = 1, G do
      local p = {}
      for k, v in pairs(self) do p[k] = v end
      p.groups, p.nInputPlane, p.nOutputPlane = nil, inPer, outPer
      p.weight = self.weight:narrow(1, (g - 1) * outPer + 1, outPer)
      p.gradWeight = self.gradWeight and self.gradWeight:narrow(1, (g - 1) * outPer + 1, outPer)
      p.bias = self.bias and self.bias:narrow(1, (g - 1) * outPer + 1, outPer)
      p.gradBias = self.gradBias and self.gradBias:narrow(1, (g - 1) * outPer + 1, outPer)
      p.output, p.gradInput = self.weight.new(), self.weight.new()
      proxies[g] = torch.setmetatable(p, parentName)
   end
   return proxies, inPer, outPer
end

local function planeDim(input, nd) return input:dim() == nd + 2 and 2 or 1 end

local function groupedFallback(self, parentName, method, input, gradOutput, scale)
   local nd = self.kT and 3 or 2
   local proxies, inPer, outPer = groupProxies(self, parentName)
   local pd = planeDim(input, nd)
   local cls = torch.getmetatable(parentName)
   local result
   for g, p in ipairs(proxies) do
      local x = input:narrow(pd, (g - 1) * inPer + 1, inPer):contiguous()
      local go = gradOutput and gradOutput:narrow(pd, (g - 1) * outPer + 1, outPer):contiguous()
      if method == 'updateOutput' then
         local y = cls.updateOutput(p, x)
         if g == 1 then
            local sz = y:size():totable()
            sz[pd] = self.nOutputPlane
            self.output:resize(unpack(sz))
         end
         self.output:narrow(pd, (g - 1) * outPer + 1, outPer):copy(y)
         result = self.output
      elseif method == 'updateGradInput' then
         local gi = cls.updateGradInput(p, x, go)
         if g == 1 then self.gradInput:resizeAs(input) end
         self.gradInput:narrow(pd, (g - 1) * inPer + 1, inPer):copy(gi)
         result = self.gradInput
      else
         cls.accGradParameters(p, x, go, scale)
      end
   end
   return result
end

---------------------------------------------------------------------------------------------------
-- The classes.

local function define(name, extraInit)
   local class, parent = torch.class('cudnn.' .. name, 'nn.' .. name)
   local parentName = 'nn.' .. name
   if extraInit then extraInit(class, parent) end

   function class:updateOutput(input)
      if viaCudnn(self, input) then
         cudnn.state(self).forward = true
         return cudnnUpdateOutput(self, input)
      end
      cudnn.state(self).forward = false
      if (self.groups or 1) > 1 then return groupedFallback(self, parentName, 'updateOutput', input) end
      return parent.updateOutput(self, input)
   end

   function class:updateGradInput(input, gradOutput)
      if self.gradInput == nil then return end
      if viaCudnn(self, input, gradOutput) then return cudnnUpdateGradInput(self, input, gradOutput) end
      if (self.groups or 1) > 1 then
         return groupedFallback(self, parentName, 'updateGradInput', input, gradOutput)
      end
      return parent.updateGradInput(self, input, gradOutput)
   end

   function class:accGradParameters(input, gradOutput, scale)
      if viaCudnn(self, input, gradOutput) and (not self.gradWeight or self.gradWeight:isContiguous())
         and cudnn.usable(self.weight, self.gradWeight, self.gradBias) then
         return cudnnAccGradParameters(self, input, gradOutput, scale)
      end
      if (self.groups or 1) > 1 then
         return groupedFallback(self, parentName, 'accGradParameters', input, gradOutput, scale)
      end
      return parent.accGradParameters(self, input, gradOutput, scale)
   end

   return class, parent
end

-- cudnn.SpatialConvolution(nInputPlane, nOutputPlane, kW, kH[, dW, dH, padW, padH, groups]).
define('SpatialConvolution', function(class, parent)
   function class:__init(nIn, nOut, kW, kH, dW, dH, padW, padH, groups)
      local who = 'cudnn.SpatialConvolution'
      groups = groups or 1
      cudnn.checkArg(type(nIn) == 'number' and type(nOut) == 'number' and type(kW) == 'number'
         and type(kH) == 'number', who, 'nInputPlane, nOutputPlane, kW, kH expected (numbers)')
      cudnn.checkArg(type(groups) == 'number' and groups >= 1 and groups % 1 == 0, who,
         'groups must be a positive integer, got %s', tostring(groups))
      cudnn.checkArg(nIn % groups == 0, who, 'nInputPlane (%d) must be divisible by groups (%d)', nIn, groups)
      cudnn.checkArg(nOut % groups == 0, who, 'nOutputPlane (%d) must be divisible by groups (%d)', nOut, groups)
      parent.__init(self, nIn / groups, nOut, kW, kH, dW, dH, padW, padH)
      self.nInputPlane = nIn
      self.groups = groups
      if groups > 1 then
         -- Made for one group's worth of input planes; the gradient buffer to match.
         self.gradWeight = self.weight.new():resizeAs(self.weight)
         self:reset()
      end
   end

   function class:reset(stdv)
      if not stdv and self.groups and self.groups > 1 then
         stdv = 1 / math.sqrt(self.kW * self.kH * self.nInputPlane / self.groups) / math.sqrt(3)
      end
      return parent.reset(self, stdv)
   end

   function class:__tostring__()
      local s = parent.__tostring__(self)
      if (self.groups or 1) > 1 then s = s .. ' groups ' .. self.groups end
      return s
   end
end)

define('SpatialDilatedConvolution')
define('VolumetricConvolution')
define('VolumetricDilatedConvolution')
local full = define('SpatialFullConvolution')
full._transposed = true
local vfull = define('VolumetricFullConvolution')
vfull._transposed = true

return cudnn
