-- optim.ConfusionMatrix(nclasses[, classes]) or optim.ConfusionMatrix(classes): counts of
-- (target, prediction) pairs. mat[t][p] is the number of samples of class t predicted as p.
--
--    local cm = optim.ConfusionMatrix({'cat', 'dog', 'bird'})
--    cm:add(model:forward(input), label)     -- a score vector (its argmax) or a class index
--    cm:batchAdd(outputs, labels)            -- a batch of either
--    print(cm)                               -- the matrix, per-class and global accuracy
--    cm:zero()
--
-- Fields, as in Torch: mat (a LongTensor), valids (per-class accuracy, a FloatTensor),
-- unionvalids (per-class intersection over union), totalValid (global accuracy), averageValid
-- (mean per-class accuracy) and averageUnionValid; updateValids() (or printing) computes them.
-- A target below 1 marks a sample without a label: it is not counted.
require 'torch'

local ConfusionMatrix = torch.class('optim.ConfusionMatrix')

local function fail(method, msg)
   error('optim.ConfusionMatrix' .. method .. ': ' .. msg, 3)
end

function ConfusionMatrix:__init(nclasses, classes)
   if type(nclasses) == 'table' then
      classes, nclasses = nclasses, #nclasses
   end
   if type(nclasses) ~= 'number' or nclasses < 1 or nclasses % 1 ~= 0 then
      fail('', 'bad argument #1 (a number of classes or a table of class names expected, got '
         .. tostring(nclasses) .. ')')
   end
   self.mat = torch.LongTensor(nclasses, nclasses):zero()
   self.valids = torch.FloatTensor(nclasses):zero()
   self.unionvalids = torch.FloatTensor(nclasses):zero()
   self.nclasses = nclasses
   self.totalValid = 0
   self.averageValid = 0
   self.averageUnionValid = 0
   self.classes = classes or {}
   -- Buffers, reused between calls.
   self._mat_flat = self.mat:view(-1)
   self._target = torch.FloatTensor()
   self._prediction = torch.FloatTensor()
   self._max = torch.FloatTensor()
   self._pred_idx = torch.LongTensor()
   self._targ_idx = torch.LongTensor()
end

-- A class index for the matrix: an integer in 1..nclasses.
local function check_class(self, method, what, c)
   if c % 1 ~= 0 or c < 1 or c > self.nclasses then
      fail(method, what .. ' ' .. tostring(c) .. ' is not a class (1..' .. self.nclasses .. ')')
   end
end

-- Counts one sample of class t predicted as p (class indices; t < 1: no label, not counted).
function ConfusionMatrix:_add(p, t)
   if type(p) ~= 'number' or type(t) ~= 'number' then
      fail(':add', 'class indices must be numbers, got ' .. type(p) .. ' and ' .. type(t))
   end
   if t > 0 then
      check_class(self, ':add', 'target', t)
      check_class(self, ':add', 'prediction', p)
      self.mat[t][p] = self.mat[t][p] + 1
   end
end

-- The index of v's largest element (the first of equals), through the given buffers.
local function argmax(self, buffer, idx, v)
   buffer:resize(v:size()):copy(v)
   self._max:max(idx, buffer, 1)
   return idx[1]
end

-- add(prediction, target): prediction a class index or a vector of scores (its argmax counts);
-- target a class index or a vector (one-hot, or scores: its argmax).
function ConfusionMatrix:add(prediction, target)
   if type(prediction) == 'number' then
      return self:_add(prediction, target)
   end
   if not torch.isTensor(prediction) or prediction:dim() ~= 1 then
      fail(':add', 'prediction must be a class index or a 1-D tensor of scores, got '
         .. torch.type(prediction))
   end
   local p = argmax(self, self._prediction, self._pred_idx, prediction)
   if type(target) == 'number' then
      return self:_add(p, target)
   end
   if not torch.isTensor(target) or target:dim() ~= 1 then
      fail(':add', 'target must be a class index or a 1-D tensor, got ' .. torch.type(target))
   end
   self:_add(p, argmax(self, self._target, self._targ_idx, target))
end

-- The class of each row: a vector of classes as it is, an n x 1 matrix flattened, an n x k matrix
-- of scores (or one-hot rows) by each row's argmax.
local function classes_of(self, what, t, buffer, idx)
   buffer:resize(t:size()):copy(t)
   if t:dim() == 1 then return buffer end
   if t:dim() == 2 then
      if t:size(2) == 1 then return buffer:select(2, 1) end
      self._max:max(idx, buffer, 2)
      return idx:select(2, 1)
   end
   fail(':batchAdd', what .. ' has invalid number of dimensions (' .. t:dim()
      .. '): expected a vector of classes or a matrix of scores')
end

-- batchAdd(predictions, targets): a batch at once; either may be a vector of class indices, or a
-- matrix of scores (one row per sample).
function ConfusionMatrix:batchAdd(predictions, targets)
   if not torch.isTensor(predictions) or not torch.isTensor(targets) then
      fail(':batchAdd', 'predictions and targets must be tensors, got '
         .. torch.type(predictions) .. ' and ' .. torch.type(targets))
   end
   if predictions:dim() == 0 or targets:dim() == 0 or predictions:size(1) ~= targets:size(1) then
      fail(':batchAdd', 'predictions and targets must have one row per sample, as many of each')
   end
   local preds = classes_of(self, 'predictions', predictions, self._prediction, self._pred_idx)
   local targs = classes_of(self, 'targets', targets, self._target, self._targ_idx)

   -- Samples without a label (target < 1) are left out.
   local mask = targs:ge(1)
   targs = targs[mask]:long()
   preds = preds[mask]:long()
   if targs:nElement() == 0 then return end
   local n = self.nclasses
   if targs:max() > n then check_class(self, ':batchAdd', 'target', targs:max()) end
   if preds:min() < 1 or preds:max() > n then
      local bad = preds:min() < 1 and preds:min() or preds:max()
      check_class(self, ':batchAdd', 'prediction', bad)
   end

   -- One indexAdd into the flat matrix: entry (t, p) is (t - 1) n + p.
   if not self.mat:isContiguous() then self.mat = self.mat:contiguous() end
   self._mat_flat = self.mat:view(-1)
   local indices = (targs - 1):mul(n):add(preds)
   local ones = torch.ones(1):typeAs(self.mat):expand(indices:size(1))
   self._mat_flat:indexAdd(1, indices, ones)
end

function ConfusionMatrix:zero()
   self.mat:zero()
   self.valids:zero()
   self.unionvalids:zero()
   self.totalValid = 0
   self.averageValid = 0
   self.averageUnionValid = 0
end

local function isnan(v) return v ~= v end

-- Computes valids, unionvalids, totalValid, averageValid and averageUnionValid from mat. A class
-- without samples has a NaN accuracy and is left out of the averages.
function ConfusionMatrix:updateValids()
   local total = 0
   for t = 1, self.nclasses do
      local hits = self.mat[t][t]
      local row, col = self.mat:select(1, t):sum(), self.mat:select(2, t):sum()
      self.valids[t] = hits / row
      self.unionvalids[t] = hits / (row + col - hits)
      total = total + hits
   end
   self.totalValid = total / self.mat:sum()
   -- The averages read the values back from the FloatTensors, rounded, as Torch's did.
   local sum, n, usum, un = 0, 0, 0, 0
   for t = 1, self.nclasses do
      local v, u = self.valids[t], self.unionvalids[t]
      if not isnan(v) then
         sum, n = sum + v, n + 1
         if not isnan(u) then usum, un = usum + u, un + 1 end
      end
   end
   self.averageValid = sum / n
   self.averageUnionValid = usum / un
end

-- False acceptance and false rejection rates. Returns, per class, the FRR and FAR (-1 for a class
-- without samples), then the same two for the classes with samples only.
function ConfusionMatrix:farFrr()
   local cmat = self.mat
   local n = cmat:size(1)
   self._frrs = torch.zeros(n)
   self._classFrrs = torch.zeros(n):add(-1)
   self._fars = torch.zeros(n)
   self._classFars = torch.zeros(n):add(-1)
   local counts = cmat:sum(2)
   local found = 0
   for i = 1, n do
      local ci = counts[i][1]
      if ci ~= 0 then
         found = found + 1
         self._frrs[found] = 1 - cmat[i][i] / ci
         self._classFrrs[i] = self._frrs[found]
         -- The mean over the other classes (with samples) of the share predicted as i.
         local num, den = 0, 0
         for j = 1, n do
            local cj = counts[j][1]
            if j ~= i and cj ~= 0 then
               num, den = num + cmat[j][i] / cj, den + 1
            end
         end
         self._fars[found] = num / den
         self._classFars[i] = self._fars[found]
      end
   end
   if found == 0 then
      return self._classFrrs, self._classFars, self._frrs.new(), self._fars.new()
   end
   return self._classFrrs, self._classFars, self._frrs[{ { 1, found } }], self._fars[{ { 1, found } }]
end

-- Torch's printout: the matrix, each row's accuracy (and class name), then the averages.
function ConfusionMatrix:__tostring__()
   self:updateValids()
   local str = { 'ConfusionMatrix:\n', '[' }
   local nclasses = self.nclasses
   local maxCnt = self.mat:max()
   local width = math.max(8, 1 + math.ceil(math.log10(maxCnt)))
   local named = self.classes and self.classes[1] ~= nil
   for t = 1, nclasses do
      local pclass = string.format('%2.3f', self.valids[t] * 100)
      str[#str + 1] = t == 1 and '[' or ' ['
      for p = 1, nclasses do
         str[#str + 1] = string.format('%' .. width .. 'd', self.mat[t][p])
      end
      str[#str + 1] = (t == nclasses and ']]  ' or ']   ') .. pclass .. '% '
      if named then
         str[#str + 1] = '\t[class: ' .. tostring(self.classes[t] or '') .. ']'
      end
      str[#str + 1] = '\n'
   end
   str[#str + 1] = ' + average row correct: ' .. (self.averageValid * 100) .. '% \n'
   str[#str + 1] = ' + average rowUcol correct (VOC measure): '
      .. (self.averageUnionValid * 100) .. '% \n'
   str[#str + 1] = ' + global correct: ' .. (self.totalValid * 100) .. '%'
   return table.concat(str)
end

-- render([sortmode[, display[, block]]]): the matrix as an image, a 2-D tensor with one block x
-- block square per cell, each row normalised to sum 1, classes sorted by 'score' (accuracy, the
-- default) or 'occurrence', with grid lines. Torch drew a legend with Qt, which is not here; with
-- display true the image is shown through gnuplot.imagesc, the accuracies in the title.
function ConfusionMatrix:render(sortmode, display, block)
   sortmode = sortmode or 'score'
   block = block or 25
   local n = self.nclasses
   local confusion = self.mat:double()
   local diag, freqs = torch.DoubleTensor(n), torch.DoubleTensor(n)
   local corrects, total = 0, 0
   for t = 1, n do
      freqs[t] = confusion[t]:sum()
      corrects = corrects + confusion[t][t]
      total = total + freqs[t]
      confusion[t]:div(math.max(freqs[t], 1))
      diag[t] = confusion[t][t]
   end
   local order
   if sortmode == 'score' then
      order = select(2, torch.sort(diag, 1, true))
   elseif sortmode == 'occurrence' then
      order = select(2, torch.sort(freqs, 1, true))
   else
      fail(':render', 'sort mode must be one of: score | occurrence')
   end
   local image = torch.zeros(n * block, n * block)
   for t = 1, n do
      for p = 1, n do
         image[{ { (t - 1) * block + 1, t * block }, { (p - 1) * block + 1, p * block } }]
            = confusion[order[t]][order[p]]
      end
   end
   for t = 1, n do
      image[{ { t * block }, {} }] = 0.1
      image[{ {}, { t * block } }] = 0.1
   end
   if display then
      local gnuplot = require 'gnuplot'
      local perclass, classes = 0, 0
      for t = 1, n do
         if freqs[t] > 0 then perclass, classes = perclass + diag[t], classes + 1 end
      end
      gnuplot.imagesc(image, 'gray')
      gnuplot.title(string.format('Confusion matrix [sorted by %s, accuracy = %0.3f%%, '
         .. 'per-class accuracy = %0.3f%%]', sortmode, corrects / total * 100,
         perclass / classes * 100))
   end
   return image
end

return ConfusionMatrix
