-- nn.MultiMarginCriterion([p, weights, margin]): the multi-class hinge loss. For a sample x (a
-- vector of class scores) of class y: sum over classes i ~= y of max(0, margin - x[y] + x[i])^p,
-- times weights[y] when class weights are given, divided by the number of classes. p is 1 (default)
-- or 2, margin 1 by default. The input is a vector (target a class number, or a 1-element tensor)
-- or a batch N x C (target a vector of N classes); the batch loss is averaged over samples unless
-- sizeAverage is false.

local kernels = require 'nn.engine.kernels'

local MultiMarginCriterion, parent = torch.class('nn.MultiMarginCriterion', 'nn.Criterion')

function MultiMarginCriterion:__init(p, weights, margin)
   assert(p == nil or p == 1 or p == 2, 'nn.MultiMarginCriterion: only p = 1 and p = 2 are supported')
   self.p = p or 1
   self.margin = margin or 1.0
   parent.__init(self)
   self.sizeAverage = true
   if weights then
      assert(torch.isTensor(weights) and weights:dim() == 1, 'nn.MultiMarginCriterion: weights must be a 1-D tensor')
      self.weights = weights
   end
end

-- The input as N x C rows and the targets as an N x 1 LongTensor of checked class numbers.
local function rowsAndTargets(input, target)
   if not torch.isTensor(input) or (input:dim() ~= 1 and input:dim() ~= 2) then
      error('nn.MultiMarginCriterion: the input must be a vector or a matrix', 3)
   end
   local rows = input:dim() == 1 and input:view(1, -1) or input
   local classes
   if type(target) == 'number' then
      classes = torch.LongTensor { target }
   elseif torch.isTensor(target) then
      classes = target:long():contiguous():view(-1)
   else
      error('nn.MultiMarginCriterion: the target must be a class number or a tensor of them', 3)
   end
   if classes:nElement() ~= rows:size(1) then
      error(string.format('nn.MultiMarginCriterion: %d targets for %d samples', classes:nElement(), rows:size(1)), 3)
   end
   local nClasses = rows:size(2)
   if classes:min() < 1 or classes:max() > nClasses then
      error(string.format('nn.MultiMarginCriterion: target out of range (1 to %d)', nClasses), 3)
   end
   return rows, classes:view(-1, 1)
end

-- The margins z = margin - x[y] + x[i] of every class of every sample, with z's positive part where
-- it counts (i ~= y), and each sample's weight (nil without weights).
local function margins(rows, classes, margin, weights)
   local z = rows:gather(2, classes):mul(-1):add(margin):expandAs(rows):clone():add(rows)
   local active = rows.new():gt(z, 0):scatter(2, classes, 0)
   local w = weights and weights:type(rows:type()):index(1, classes:view(-1)):view(-1, 1):expandAs(rows)
   return z, active, w
end

local function multiMarginLoss(rows, classes, p, margin, weights)
   local z, active, w = margins(rows, classes, margin, weights)
   z:cmul(active)
   if p == 2 then z:cmul(z) end
   if w then z:cmul(w) end
   return z:sum() / rows:size(2)
end

-- Each counted class i gets g (p = 1) or 2 g z (p = 2), g = 1/C (1/(N C) averaged); the target
-- class gets minus the sum of those.
local function multiMarginGrad(gradRows, rows, classes, p, margin, weights, g)
   local z, active, w = margins(rows, classes, margin, weights)
   gradRows:resizeAs(rows)
   if p == 2 then
      gradRows:copy(z):mul(2 * g):cmul(active)
   else
      gradRows:copy(active):mul(g)
   end
   if w then gradRows:cmul(w) end
   gradRows:scatter(2, classes, gradRows:sum(2):mul(-1))
   return gradRows
end

-- For the fused kernels (kernels::nn_loss): the kernel, the input as contiguous N x C rows, the
-- targets as N longs (the kernel checks their range) and the weights in the input's type; nil
-- when the input is not a float or double tensor.
local function fusedOperands(self, input, target, name)
   local k = torch.isTensor(input) and kernels.fused(name, input)
   if not k or (input:dim() ~= 1 and input:dim() ~= 2) or (type(target) ~= 'number' and not torch.isTensor(target)) then
      return nil
   end
   local rows = input:contiguous()
   rows = rows:dim() == 1 and rows:view(1, -1) or rows
   local classes = type(target) == 'number' and torch.LongTensor { target } or target:long():contiguous():view(-1)
   if classes:nElement() ~= rows:size(1) then
      error(string.format('nn.MultiMarginCriterion: %d targets for %d samples', classes:nElement(), rows:size(1)), 3)
   end
   local w = self.weights and self.weights:type(rows:type()):contiguous()
   return k, rows, classes, w
end

function MultiMarginCriterion:updateOutput(input, target)
   local k, rows, classes, w = fusedOperands(self, input, target, 'multiMargin')
   if k then
      self.output = k(rows, classes, w, self.p or 1, self.margin) / rows:size(2)
      if self.sizeAverage then self.output = self.output / rows:size(1) end
      return self.output
   end
   local rows, classes = rowsAndTargets(input, target)
   self.output = multiMarginLoss(rows, classes, self.p or 1, self.margin, self.weights)
   if self.sizeAverage then self.output = self.output / rows:size(1) end
   return self.output
end

function MultiMarginCriterion:updateGradInput(input, target)
   local k, rows, classes, w = fusedOperands(self, input, target, 'multiMarginBackward')
   if k and torch.type(self.gradInput) == torch.type(input) then
      local g = 1 / rows:size(2)
      if self.sizeAverage then g = g / rows:size(1) end
      self.gradInput:resizeAs(input)
      if not self.gradInput:isContiguous() then self.gradInput = input.new():resizeAs(input) end
      k(self.gradInput:view(rows:size()), rows, classes, w, self.p or 1, self.margin, g)
      return self.gradInput
   end
   local rows, classes = rowsAndTargets(input, target)
   local g = 1 / rows:size(2)
   if self.sizeAverage then g = g / rows:size(1) end
   self.gradInput:resizeAs(input)
   local gradRows = input:dim() == 1 and self.gradInput:view(1, -1) or self.gradInput
   multiMarginGrad(gradRows, rows, classes, self.p or 1, self.margin, self.weights, g)
   return self.gradInput
end

return MultiMarginCriterion
