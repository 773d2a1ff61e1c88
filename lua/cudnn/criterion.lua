-- cudnn.SpatialCrossEntropyCriterion([weights]) and cudnn.VolumetricCrossEntropyCriterion([weights]):
-- a log-softmax across the planes (cudnn.SpatialLogSoftMax) and nn.SpatialClassNLLCriterion in
-- one criterion, for a batch N x C x H x W (targets N x H x W, class numbers from 1) or, for the
-- volumetric one, N x C x T x H x W (targets N x T x H x W), seen as N x C x (T*H) x W.

local cudnn = require 'cudnn'

local function define(name, nd)
   local class, parent = torch.class('cudnn.' .. name, 'nn.Criterion')

   function class:__init(weights)
      parent.__init(self)
      self.slsm = cudnn.SpatialLogSoftMax()
      self.nll = nn.SpatialClassNLLCriterion(weights)
      self.sizeAverage = true
   end

   -- The input and target as the spatial criterion takes them, after checking their shapes.
   local function shaped(self, input, target)
      local who = torch.type(self)
      if type(input) ~= 'userdata' or type(target) ~= 'userdata' then
         error(who .. ': input and target tensors expected', 0)
      end
      if input:dim() ~= nd + 2 then
         error(string.format('%s: a mini-batch (%dD input) is expected, got a %dD input', who, nd + 2, input:dim()), 0)
      end
      if target:dim() ~= nd + 1 then
         error(string.format('%s: a %dD target expected, got %dD', who, nd + 1, target:dim()), 0)
      end
      for i = 1, nd + 1 do
         local si = i == 1 and input:size(1) or input:size(i + 1)
         if target:size(i) ~= si then
            error(string.format('%s: input and target sizes do not match (dimension %d of the target is %d, %d '
               .. 'expected)', who, i, target:size(i), si), 0)
         end
      end
      if nd == 3 then
         local s = input:size()
         input = input:contiguous():view(s[1], s[2], s[3] * s[4], s[5])
         target = target:contiguous():view(s[1], s[3] * s[4], s[5])
      end
      return input, target
   end

   function class:updateOutput(input, target)
      local x, t = shaped(self, input, target)
      self.slsm:updateOutput(x)
      self.nll.sizeAverage = self.sizeAverage
      self.nll:updateOutput(self.slsm.output, t)
      self.output = self.nll.output
      return self.output
   end

   function class:updateGradInput(input, target)
      local x, t = shaped(self, input, target)
      self.nll.sizeAverage = self.sizeAverage
      self.nll:updateGradInput(self.slsm.output, t)
      self.slsm:updateGradInput(x, self.nll.gradInput)
      self.gradInput = self.slsm.gradInput:view(input:size())
      return self.gradInput
   end

   function class:type(type, tensorCache)
      if type then
         self.slsm:type(type, tensorCache)
         self.nll:type(type, tensorCache)
      end
      return parent.type(self, type, tensorCache)
   end

   return class
end

define('SpatialCrossEntropyCriterion', 2)
define('VolumetricCrossEntropyCriterion', 3)

return cudnn
