-- nn.BCECriterion([weights, sizeAverage]): the binary cross-entropy of probabilities x (in [0, 1])
-- against targets t: -sum w_i (t_i log(x_i) + (1 - t_i) log(1 - x_i)), divided by the element
-- count unless sizeAverage is false. `weights` (optional) is a vector: as long as the input when
-- the input is a vector, else as long as its last dimension (one weight per column of a batch).

local kernels = require 'nn.engine.kernels'

local BCECriterion, parent = torch.class('nn.BCECriterion', 'nn.Criterion')

-- Keeps log(0) finite, as the original does.
local EPS = 1e-12

function BCECriterion:__init(weights, sizeAverage)
   parent.__init(self)
   if sizeAverage ~= nil then
      self.sizeAverage = sizeAverage
   else
      self.sizeAverage = true
   end
   if weights ~= nil then
      assert(torch.isTensor(weights) and weights:dim() == 1, 'nn.BCECriterion: weights must be a 1-D tensor')
      self.weights = weights
   end
end

function BCECriterion:__len()
   return self.weights and self.weights:nElement() or 0
end

local function matched(input, target)
   if not torch.isTensor(target) or target:nElement() ~= input:nElement() then
      error(string.format('nn.BCECriterion: the target must be a tensor of %d elements, like the input',
         input:nElement()), 3)
   end
   if target:type() ~= input:type() then target = target:type(input:type()) end
   if not target:isSameSizeAs(input) then target = target:contiguous():view(input:size()) end
   return target
end

-- The weights laid over the input: as they are for a vector, repeated down the rows of a batch.
local function weightsFor(weights, input)
   if not weights then return nil end
   if weights:type() ~= input:type() then weights = weights:type(input:type()) end
   local n = input:size(input:dim())
   if input:dim() == 1 or weights:nElement() ~= n then
      if weights:nElement() ~= input:nElement() then
         error(string.format('nn.BCECriterion: %d weights for an input of %d elements per row',
            weights:nElement(), n), 3)
      end
      return weights:contiguous():view(input:size())
   end
   local size = torch.LongStorage(input:dim()):fill(1)
   size[input:dim()] = n
   return weights:contiguous():view(size):expandAs(input)
end

local function bceLoss(input, target, weights)
   local pos = torch.add(input, EPS):log():cmul(target)
   local neg = torch.mul(input, -1):add(1 + EPS):log():cmul(torch.mul(target, -1):add(1))
   pos:add(neg)
   if weights then pos:cmul(weights) end
   return -pos:sum()
end

-- d/dx = -(t - x) / ((1 - x + eps) (x + eps)), times the weight.
local function bceGrad(gradInput, input, target, weights, norm)
   local denom = torch.mul(input, -1):add(1 + EPS):cmul(torch.add(input, EPS))
   gradInput:resizeAs(input):add(input, -1, target):cdiv(denom):mul(norm)
   if weights then gradInput:cmul(weights) end
   return gradInput
end

local function checkRange(input)
   if input:nElement() > 0 and (input:min() < 0 or input:max() > 1) then
      error('nn.BCECriterion: input values must be between 0 and 1 (probabilities)', 3)
   end
end

-- The weights for the fused kernels: checked as weightsFor does, then given as they are (one per
-- element, or one per column, which the kernel repeats down the rows).
local function kernelWeights(weights, input)
   if not weights then return nil end
   weightsFor(weights, input)
   if weights:type() ~= input:type() then weights = weights:type(input:type()) end
   return weights:contiguous()
end

function BCECriterion:updateOutput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseLoss', input, target)
   if k then
      -- One pass in Rust (kernels::nn_loss), which checks the range too.
      self.output = k('bce', input:contiguous(), target:contiguous(), kernelWeights(self.weights, input))
      if self.sizeAverage then self.output = self.output / input:nElement() end
      return self.output
   end
   checkRange(input)
   self.output = bceLoss(input, target, weightsFor(self.weights, input))
   if self.sizeAverage then self.output = self.output / input:nElement() end
   return self.output
end

function BCECriterion:updateGradInput(input, target)
   target = matched(input, target)
   local k = kernels.fused('pointwiseGrad', input, target, self.gradInput)
   if k then
      self.gradInput:resizeAs(input)
      k('bce', self.gradInput, input:contiguous(), target:contiguous(), kernelWeights(self.weights, input),
         self.sizeAverage and 1 / input:nElement() or 1)
      return self.gradInput
   end
   bceGrad(self.gradInput, input, target, weightsFor(self.weights, input),
      self.sizeAverage and 1 / input:nElement() or 1)
   return self.gradInput
end

return BCECriterion
