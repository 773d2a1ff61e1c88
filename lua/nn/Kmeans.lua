-- nn.Kmeans(k, dim[, scale]): k-means clustering as a layer. The k centroids are the rows of
-- weight (k x dim). The output gives, for each row of a 2-D input, the index of its nearest
-- centroid; `loss` is the sum of the squared distances to them. accGradParameters puts in
-- gradWeight the step that moves each centroid to the mean of its samples (scaled by `scale`),
-- so weight:add(-1, gradWeight) is one k-means iteration. initRandom and initKmeansPlus choose
-- starting centroids among the samples (k-means++: far from the chosen ones, at random among the
-- 1 - p farthest).

local Kmeans, parent = torch.class('nn.Kmeans', 'nn.Module')

function Kmeans:__init(k, dim, scale)
   parent.__init(self)
   self.k = k
   self.dim = dim
   self.scale = scale
   assert(k > 0, 'nn.Kmeans: the number of clusters must be positive')
   assert(dim > 0, 'nn.Kmeans: the dimensionality must be positive')
   self.weight = torch.Tensor(self.k, self.dim)
   self.gradWeight = torch.Tensor(self.weight:size())
   self.loss = 0
   self.clusterSampleCount = torch.Tensor(self.k)
   self:reset()
end

function Kmeans:reset(stdev)
   self.weight:uniform(-(stdev or 1), stdev or 1)
end

local function checkInput(self, input)
   assert(input:dim() == 2, 'nn.Kmeans: a 2-D input (samples x dim) is expected')
   assert(input:size(2) == self.dim, 'nn.Kmeans: the input and the centroids differ in dimensionality')
end

-- k random samples as centroids.
function Kmeans:initRandom(input)
   checkInput(self, input)
   assert(input:size(1) >= self.k, 'nn.Kmeans: at least k samples are needed')
   local indices = torch.LongTensor(self.k):random(1, input:size(1))
   self.weight:index(input, 1, indices)
end

-- Squared distances from every sample to every row of `centres` (n x c).
local function squaredDistances(samples, centres)
   local n, c = samples:size(1), centres:size(1)
   local d = samples.new(n, c):mm(samples, centres:t()):mul(-2)
   d:add(torch.cmul(samples, samples):sum(2):expand(n, c))
   d:add(torch.cmul(centres, centres):sum(2):view(1, c):expand(n, c))
   return d:clamp(0, math.huge)
end

function Kmeans:initKmeansPlus(input, p)
   self.p = p or self.p or 0.95
   assert(self.p >= 0 and self.p <= 1, 'nn.Kmeans: p must be in [0, 1]')
   checkInput(self, input)
   local n = input:size(1)
   local pcount = math.max(1, math.ceil((1 - self.p) * n))
   self.weight[1]:copy(input[torch.random(n)])
   local distances = input.new(n):fill(math.huge)
   for c = 2, self.k do
      -- distance of each sample to its nearest chosen centroid
      distances:cmin(squaredDistances(input, self.weight:narrow(1, c - 1, 1)):view(n))
      local _, order = distances:sort(1, true)
      self.weight[c]:copy(input[order[torch.random(pcount)]])
   end
end

function Kmeans:updateOutput(input)
   checkInput(self, input)
   local d = squaredDistances(input, self.weight)
   self._minScore, self._minIndx = torch.min(d, 2)
   self._minIndx = self._minIndx:view(-1)
   self.output:resize(input:size(1)):copy(self._minIndx)
   self.loss = self._minScore:sum()
   return self.output
end

function Kmeans:updateGradInput(input, gradOutput)
   self.gradInput:resizeAs(input):zero()
   return self.gradInput
end

-- gradWeight_c += scale * (w_c - mean of the samples of cluster c).
function Kmeans:accGradParameters(input, gradOutput, scale)
   scale = self.scale or scale or 1
   assert(scale > 0, 'nn.Kmeans: the scale must be positive')
   local n = input:size(1)
   self.clusterSampleCount:zero():indexAdd(1, self._minIndx, input.new(n):fill(1))
   -- (w_c - x) for each sample, summed per cluster
   local diff = self.weight:index(1, self._minIndx):add(-1, input):mul(scale)
   local sums = self.gradWeight.new():resizeAs(self.gradWeight):zero():indexAdd(1, self._minIndx, diff)
   local counts = self.clusterSampleCount:clone():add(1e-7):view(self.k, 1):expandAs(sums)
   self.gradWeight:add(sums:cdiv(counts))
end

function Kmeans:clearState()
   self._minScore = nil
   self._minIndx = nil
   return parent.clearState(self)
end

function Kmeans:type(type, tensorCache)
   self:clearState()
   return parent.type(self, type, tensorCache)
end

return Kmeans
