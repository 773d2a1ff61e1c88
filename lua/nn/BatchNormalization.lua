-- nn.BatchNormalization(nFeature[, eps, momentum, affine]): each feature normalised to zero mean
-- and unit variance over the batch (in training; with the running estimates in evaluation),
-- then scaled by `weight` and shifted by `bias` (affine, the default). The input is N x nFeature;
-- the Spatial and Volumetric versions normalise per plane over N x H x W (x D) by seeing their
-- input as rows of features (`nDim` says how many dimensions a batch has).

local kernels = require 'nn.engine.kernels'

local BN, parent = torch.class('nn.BatchNormalization', 'nn.Module')

BN.__version = 2
-- Dimensions of a batch (N x nFeature).
BN.nDim = 2

function BN:__init(nOutput, eps, momentum, affine)
   parent.__init(self)
   assert(nOutput and type(nOutput) == 'number', 'nn.BatchNormalization: the number of features is expected')
   assert(nOutput ~= 0, 'nn.BatchNormalization: the number of features must not be 0')
   if affine ~= nil then
      assert(type(affine) == 'boolean', 'nn.BatchNormalization: affine must be true or false')
      self.affine = affine
   else
      self.affine = true
   end
   self.eps = eps or 1e-5
   self.train = true
   self.momentum = momentum or 0.1
   self.running_mean = torch.zeros(nOutput)
   self.running_var = torch.ones(nOutput)
   if self.affine then
      self.weight = torch.Tensor(nOutput)
      self.bias = torch.Tensor(nOutput)
      self.gradWeight = torch.Tensor(nOutput)
      self.gradBias = torch.Tensor(nOutput)
      self:reset()
   end
end

function BN:reset()
   if self.weight then self.weight:uniform() end
   if self.bias then self.bias:zero() end
   self.running_mean:zero()
   self.running_var:fill(1)
end

function BN:checkInputDim(input)
   local iDim = input:dim()
   assert(iDim == self.nDim or (iDim == self.nDim - 1 and self.train == false), string.format(
      'only mini-batch supported (%dD tensor), got %dD tensor instead', self.nDim, iDim))
   local featDim = (iDim == self.nDim - 1) and 1 or 2
   assert(input:size(featDim) == self.running_mean:nElement(), string.format(
      'got %d-feature tensor, expected %d', input:size(featDim), self.running_mean:nElement()))
end

-- The input seen as rows of features (M x nFeature), contiguous, and how to put a result of that
-- shape back into the input's (element order; copy it in). A single sample of a module with
-- nDim > 2 (one dimension fewer than a batch) is a batch of one.
local function rows(input, nDim)
   if nDim > 2 and input:dim() == nDim - 1 then
      input = nn.utils.addSingletonDimension(input, 1)
   end
   if input:dim() == 1 then
      return input:view(1, -1), function(r) return r:view(input:size()) end
   end
   if input:dim() == 2 then
      return input:contiguous(), function(r) return r end
   end
   -- N x C x ... -> (N x ...) x C
   local C = input:size(2)
   local perm = { 1 }
   for d = 3, input:dim() do perm[#perm + 1] = d end
   perm[#perm + 1] = 2
   local moved = input:permute(unpack(perm)):contiguous()
   local movedSize = moved:size()
   local back = {}
   for i, d in ipairs(perm) do back[d] = i end
   return moved:view(-1, C), function(r)
      return r:view(movedSize):permute(unpack(back))
   end
end

-- Old saved models kept the running standard deviation's inverse instead of the variance.
function BN:backCompatibility()
   if self.running_std and not self.running_var then
      self.running_var = self.running_std:clone():pow(-2):add(-self.eps)
      self.running_std = nil
   end
end

-- The input as a contiguous N x C x S tensor (S: the pixels of a plane, 1 for N x C), for the
-- fused kernels (kernels::nn_batchnorm).
local function planes(input, nDim)
   if nDim > 2 and input:dim() == nDim - 1 then
      input = nn.utils.addSingletonDimension(input, 1)
   end
   local x = input:contiguous()
   if x:dim() == 1 then return x:view(1, x:size(1), 1) end
   return x:view(x:size(1), x:size(2), -1)
end

-- The fused kernel `name` when the module's tensors have the input's type and are contiguous,
-- else nil (the tensor-method path: other types, device tensors).
local function fused(self, name, input, ...)
   local k = kernels.fused(name, input, self.weight, self.bias, self.running_mean, self.running_var, ...)
   if not k or input:nElement() == 0 then return nil end
   for _, t in ipairs({ self.weight or false, self.bias or false, self.running_mean, self.running_var }) do
      if t and not t:isContiguous() then return nil end
   end
   return k
end

-- The saved statistics, in the input's type, C each.
local function saved(self, input, C)
   for _, name in ipairs({ 'save_mean', 'save_std' }) do
      if not self[name] or torch.type(self[name]) ~= torch.type(input) or not self[name]:isContiguous() then
         self[name] = input.new()
      end
      self[name]:resize(C)
   end
end

function BN:updateOutput(input)
   self:checkInputDim(input)
   self:backCompatibility()
   local k = fused(self, 'batchNorm', input, self.output)
   if k then
      local x = planes(input, self.nDim)
      if self.train then saved(self, input, x:size(2)) end
      self.output:resizeAs(input)
      if not self.output:isContiguous() then self.output = input.new():resizeAs(input) end
      k(self.output:view(x:size()), x, self.weight, self.bias, self.running_mean, self.running_var,
         self.save_mean, self.save_std, self.train and true or false, self.eps, self.momentum)
      return self.output
   end
   local x, back = rows(input, self.nDim)
   local M = x:size(1)
   local mean, invstd
   if self.train then
      mean = x:mean(1)
      local centered = x - mean:expandAs(x)
      local var = torch.cmul(centered, centered):mean(1) -- biased, for normalising
      invstd = var:clone():add(self.eps):sqrt():pow(-1)
      -- The running variance is the unbiased estimate.
      local unbiased = M > 1 and var * (M / (M - 1)) or var
      self.running_mean:mul(1 - self.momentum):add(self.momentum, mean:view(-1))
      self.running_var:mul(1 - self.momentum):add(self.momentum, unbiased:view(-1))
      self.save_mean = mean:view(-1):clone()
      self.save_std = invstd:view(-1):clone()
   else
      mean = self.running_mean:view(1, -1)
      invstd = self.running_var:clone():add(self.eps):sqrt():pow(-1):view(1, -1)
   end
   local y = x - mean:expandAs(x)
   y:cmul(invstd:expandAs(x))
   if self.affine then
      y:cmul(self.weight:view(1, -1):expandAs(x)):add(self.bias:view(1, -1):expandAs(x))
   end
   self.output:resizeAs(input):copy(back(y))
   return self.output
end

-- The normalised input and the gradient in row form.
local function backwardRows(self, input, gradOutput)
   local x = rows(input, self.nDim)
   local g, back = rows(gradOutput, self.nDim)
   local mean, invstd
   if self.train then
      mean, invstd = self.save_mean:view(1, -1), self.save_std:view(1, -1)
   else
      mean = self.running_mean:view(1, -1)
      invstd = self.running_var:clone():add(self.eps):sqrt():pow(-1):view(1, -1)
   end
   local xhat = (x - mean:expandAs(x)):cmul(invstd:expandAs(x))
   return x, g, xhat, invstd, back
end

-- One fused pass for the gradients asked for (gradInput, and/or gradWeight and gradBias), or
-- false when the kernel does not apply.
local function fusedBackward(self, input, gradOutput, gradInput, params, scale)
   local k = fused(self, 'batchNormBackward', input, gradOutput, self.gradInput, self.gradWeight, self.gradBias)
   if not k or not gradOutput:isSameSizeAs(input) then return false end
   if self.train and not (self.save_mean and torch.type(self.save_mean) == torch.type(input)) then return false end
   params = params and self.affine
   if params and not (self.gradWeight:isContiguous() and self.gradBias:isContiguous()) then return false end
   local x = planes(input, self.nDim)
   local gi
   if gradInput then
      self.gradInput:resizeAs(input)
      if not self.gradInput:isContiguous() then self.gradInput = input.new():resizeAs(input) end
      gi = self.gradInput:view(x:size())
   end
   -- The weight only scales gradInput; accUpdateGradParameters makes it gradWeight, written here.
   k(x, gradOutput:contiguous():view(x:size()), gradInput and self.weight or nil, nil, self.running_mean, self.running_var,
      self.save_mean, self.save_std, self.train and true or false, self.eps, gi,
      params and self.gradWeight or nil, params and self.gradBias or nil, scale or 1)
   return true
end

-- Both gradients in one pass (nn.Module:backward would read the input twice).
function BN:backward(input, gradOutput, scale)
   if fusedBackward(self, input, gradOutput, true, true, scale) then return self.gradInput end
   return parent.backward(self, input, gradOutput, scale)
end

function BN:updateGradInput(input, gradOutput)
   if fusedBackward(self, input, gradOutput, true, false) then return self.gradInput end
   local x, g, xhat, invstd, back = backwardRows(self, input, gradOutput)
   local M = x:size(1)
   local gi
   if self.train then
      -- d/dx of w * (x - mean) * invstd with the batch statistics:
      -- w * invstd * (g - mean(g) - xhat * mean(g * xhat))
      local gmean = g:mean(1)
      local gxmean = torch.cmul(g, xhat):mean(1)
      gi = g - gmean:expandAs(g) - torch.cmul(xhat, gxmean:expandAs(xhat))
      gi:cmul(invstd:expandAs(gi))
   else
      gi = torch.cmul(g, invstd:expandAs(g))
   end
   if self.affine then
      gi:cmul(self.weight:view(1, -1):expandAs(gi))
   end
   local _ = M
   self.gradInput:resizeAs(input):copy(back(gi))
   return self.gradInput
end

function BN:accGradParameters(input, gradOutput, scale)
   if not self.affine then return end
   scale = scale or 1
   if fusedBackward(self, input, gradOutput, false, true, scale) then return end
   local _, g, xhat = backwardRows(self, input, gradOutput)
   self.gradWeight:add(scale, torch.cmul(g, xhat):sum(1):view(-1))
   self.gradBias:add(scale, g:sum(1):view(-1))
end

function BN:clearState()
   nn.utils.clear(self, 'save_mean', 'save_std')
   return parent.clearState(self)
end

function BN:__tostring__()
   return string.format('%s (%dD) (%d)', torch.type(self), self.nDim, self.running_mean:nElement())
end

return BN
