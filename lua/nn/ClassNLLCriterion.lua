-- nn.ClassNLLCriterion([weights, sizeAverage, ignoreIndex]): the negative log-likelihood of the
-- target class, given log-probabilities (a vector, or a batch N x C with N targets), each sample
-- weighted by its class's weight; averaged over the total weight unless sizeAverage is false.
-- Samples whose target is ignoreIndex (default -100) count for nothing. forward returns the loss
-- and the total weight.

local kernels = require 'nn.engine.kernels'

local ClassNLLCriterion, parent = torch.class('nn.ClassNLLCriterion', 'nn.Criterion')

function ClassNLLCriterion:__init(weights, sizeAverage, ignoreIndex)
   parent.__init(self)
   self.sizeAverage = (sizeAverage == nil) and true or sizeAverage
   self.ignoreIndex = ignoreIndex or -100
   if weights then
      assert(torch.isTensor(weights) and weights:dim() == 1, 'nn.ClassNLLCriterion: weights must be a vector')
      self.weights = weights
   end
   self.output_tensor = torch.zeros(1)
   self.total_weight_tensor = torch.ones(1)
   self.target = torch.zeros(1):long()
end

function ClassNLLCriterion:__len()
   return self.weights and self.weights:nElement() or 0
end

-- The targets (a class number, or a tensor of them) as N contiguous longs, kept in self.target;
-- an error unless there is one per sample. Called from prepare and fusedOperands, so its errors
-- point one level further up.
local function classTargets(self, target, n)
   if type(target) == 'number' then
      self.target = self.target:long():resize(1)
      self.target[1] = target
   elseif torch.isTensor(target) then
      self.target = target:long()
   else
      error('nn.ClassNLLCriterion: the target must be a class number or a tensor of them', 4)
   end
   if self.target:dim() > 1 and self.target:nElement() ~= n then
      error('nn.ClassNLLCriterion: multi-target not supported (the target must hold one class per sample)', 4)
   end
   local classes = self.target:contiguous():view(-1)
   if classes:size(1) < n then
      error(string.format('nn.ClassNLLCriterion: %d targets for %d samples', classes:size(1), n), 4)
   end
   -- Torch7 reads the first n classes of a longer vector of them (one sample takes the first):
   -- Element-Research/rnn's tests rely on it.
   return classes:size(1) > n and classes:narrow(1, 1, n) or classes
end

-- The input as N x C rows; the targets as an N x 1 LongTensor in which ignored samples point at
-- class 1; and each sample's weight (0 for the ignored ones), N x 1 in the input's type.
local function prepare(self, input, target)
   if not torch.isTensor(input) or (input:dim() ~= 1 and input:dim() ~= 2) then
      error('nn.ClassNLLCriterion: input must be a vector or a matrix', 3)
   end
   local rows = input:dim() == 1 and input:view(1, -1) or input
   local n, nClasses = rows:size(1), rows:size(2)
   local classes = classTargets(self, target, n):view(-1, 1)
   local kept = classes:ne(self.ignoreIndex)
   local safe = classes:clone():maskedFill(classes:eq(self.ignoreIndex), 1)
   if safe:min() < 1 or safe:max() > nClasses then
      error(string.format('nn.ClassNLLCriterion: target out of range (1 to %d)', nClasses), 3)
   end
   local w
   if self.weights then
      if self.weights:nElement() ~= nClasses then
         error(string.format('nn.ClassNLLCriterion: %d weights for %d classes', self.weights:nElement(), nClasses), 3)
      end
      w = self.weights:type(rows:type()):index(1, safe:view(-1)):view(-1, 1)
   else
      w = rows.new(n, 1):fill(1)
   end
   w:cmul(kept:type(rows:type()))
   return rows, safe, w
end

-- For the fused kernels (kernels::nn_loss): the input as contiguous N x C rows, the targets as
-- N longs (the kernel checks their range), the weights in the input's type; nil when the input
-- is not a float or double tensor.
local function fusedOperands(self, input, target, name)
   local k = torch.isTensor(input) and kernels.fused(name, input)
   if not k or (input:dim() ~= 1 and input:dim() ~= 2) then return nil end
   local rows = input:contiguous()
   rows = rows:dim() == 1 and rows:view(1, -1) or rows
   local n, nClasses = rows:size(1), rows:size(2)
   local classes = classTargets(self, target, n)
   local w = self.weights
   if w then
      if w:nElement() ~= nClasses then
         error(string.format('nn.ClassNLLCriterion: %d weights for %d classes', w:nElement(), nClasses), 3)
      end
      w = w:type(rows:type()):contiguous()
   end
   return k, rows, classes, w
end

function ClassNLLCriterion:updateOutput(input, target)
   local k, rows, classes, w = fusedOperands(self, input, target, 'classNLL')
   if k then
      local total, totalWeight = k(rows, classes, w, self.ignoreIndex or -100)
      if self.sizeAverage and totalWeight ~= 0 then total = total / totalWeight end
      self.output = total
      self.output_tensor[1] = total
      self.total_weight_tensor[1] = totalWeight
      return self.output, totalWeight
   end
   local rows, classes, w = prepare(self, input, target)
   local total = -rows:gather(2, classes):cmul(w):sum()
   local totalWeight = w:sum()
   if self.sizeAverage and totalWeight ~= 0 then total = total / totalWeight end
   self.output = total
   self.output_tensor[1] = total
   self.total_weight_tensor[1] = totalWeight
   return self.output, totalWeight
end

-- -w at each sample's target (divided by the total weight when averaged), 0 elsewhere. The total
-- weight is the one of the last forward.
function ClassNLLCriterion:updateGradInput(input, target)
   local k, rows, classes, w = fusedOperands(self, input, target, 'classNLLBackward')
   if k and torch.type(self.gradInput) == torch.type(input) then
      self.gradInput:resizeAs(input)
      if not self.gradInput:isContiguous() then self.gradInput = input.new():resizeAs(input) end
      local totalWeight = self.total_weight_tensor[1]
      if not (totalWeight > 0) then
         self.gradInput:zero()
         return self.gradInput
      end
      k(self.gradInput:view(rows:size()), rows, classes, w, self.ignoreIndex or -100,
         self.sizeAverage and 1 / totalWeight or 1)
      return self.gradInput
   end
   local rows, classes, w = prepare(self, input, target)
   self.gradInput:resizeAs(input):zero()
   local totalWeight = self.total_weight_tensor[1]
   if not (totalWeight > 0) then return self.gradInput end
   local grads = w:mul(-1)
   if self.sizeAverage then grads:div(totalWeight) end
   local gradRows = input:dim() == 1 and self.gradInput:view(1, -1) or self.gradInput
   gradRows:scatter(2, classes, grads)
   return self.gradInput
end

return ClassNLLCriterion
