-- nn.MultiLabelMarginCriterion(): the multi-class multi-label hinge loss. The target of a sample
-- (a vector of C class scores) is a vector of C class numbers: its target classes, listed first and
-- ended by the first 0 (the rest is ignored). The loss sums, over target classes j and non-target
-- classes i, max(0, 1 - (x[j] - x[i])), divided by C. The input is a vector (target a vector of C)
-- or a batch N x C (target N x C); the batch loss is averaged over samples unless sizeAverage is
-- false. `isTarget` holds, after forward, 1 at each sample's target classes.

local MultiLabelMarginCriterion, parent = torch.class('nn.MultiLabelMarginCriterion', 'nn.Criterion')

function MultiLabelMarginCriterion:__init()
   parent.__init(self)
   self.sizeAverage = true
   self.isTarget = torch.Tensor()
end

-- The input and target as N x C rows, checked.
local function rowsOf(input, target)
   if not torch.isTensor(input) or (input:dim() ~= 1 and input:dim() ~= 2) then
      error('nn.MultiLabelMarginCriterion: the input must be a vector or a matrix', 3)
   end
   if not torch.isTensor(target) or not target:isSameSizeAs(input) then
      error('nn.MultiLabelMarginCriterion: the target must be a tensor of class numbers the size of the input', 3)
   end
   local rows = input:dim() == 1 and input:view(1, -1) or input
   local targets = target:long():contiguous():view(rows:size(1), rows:size(2))
   if targets:nElement() > 0 and (targets:min() < 0 or targets:max() > rows:size(2)) then
      error(string.format('nn.MultiLabelMarginCriterion: target out of range (0 to %d)', rows:size(2)), 3)
   end
   return rows, targets
end

-- Sets self.isTarget (shaped like the target) and returns, per sample, its list of target classes
-- (the entries before the first 0; a LongTensor, or nil when there are none).
local function targetLists(self, rows, targets, target)
   local n, c = rows:size(1), rows:size(2)
   if self.isTarget:type() ~= rows:type() then self.isTarget = rows.new() end
   self.isTarget:resize(n, c):zero()
   local lists = {}
   for s = 1, n do
      local row = targets[s]
      local k = 0
      while k < c and row[k + 1] ~= 0 do k = k + 1 end
      if k > 0 then
         lists[s] = row:narrow(1, 1, k)
         self.isTarget[s]:indexFill(1, lists[s], 1)
      end
   end
   self.isTarget = self.isTarget:view(target:size())
   return lists
end

-- For one sample: the k x C hinge terms 1 - x[j] + x[i] (row per target class j), kept where they
-- are positive and i is not a target class.
local function hinges(x, list, isTarget)
   local k, c = list:nElement(), x:nElement()
   local z = x:index(1, list):mul(-1):add(1):view(k, 1):expand(k, c):clone():add(x:view(1, c):expand(k, c))
   local active = x.new():gt(z, 0):cmul(isTarget:clone():mul(-1):add(1):view(1, c):expand(k, c))
   return z, active
end

function MultiLabelMarginCriterion:updateOutput(input, target)
   local rows, targets = rowsOf(input, target)
   local lists = targetLists(self, rows, targets, target)
   local isTarget = self.isTarget:view(rows:size(1), rows:size(2))
   local sum = 0
   for s = 1, rows:size(1) do
      if lists[s] then
         local z, active = hinges(rows[s], lists[s], isTarget[s])
         sum = sum + z:cmul(active):sum()
      end
   end
   sum = sum / rows:size(2)
   if self.sizeAverage then sum = sum / rows:size(1) end
   self.output = sum
   return self.output
end

-- Each active pair (j, i) adds g to x[i] and -g to x[j]; g = 1/C (1/(N C) averaged).
function MultiLabelMarginCriterion:updateGradInput(input, target)
   local rows, targets = rowsOf(input, target)
   local lists = targetLists(self, rows, targets, target)
   local isTarget = self.isTarget:view(rows:size(1), rows:size(2))
   local g = 1 / rows:size(2)
   if self.sizeAverage then g = g / rows:size(1) end
   self.gradInput:resizeAs(input):zero()
   local gradRows = input:dim() == 1 and self.gradInput:view(1, -1) or self.gradInput
   for s = 1, rows:size(1) do
      if lists[s] then
         local _, active = hinges(rows[s], lists[s], isTarget[s])
         gradRows[s]:add(g, active:sum(1):view(-1))
         gradRows[s]:indexAdd(1, lists[s], active:sum(2):view(-1):mul(-g))
      end
   end
   return self.gradInput
end

return MultiLabelMarginCriterion
