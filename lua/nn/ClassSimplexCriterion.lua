-- nn.ClassSimplexCriterion(nClasses): classification by regression onto fixed class embeddings.
-- Class k is the k-th vertex of a regular simplex centred at the origin (unit vectors whose
-- pairwise dot products are all -1/(nClasses-1)), written in nClasses dimensions (one more than the
-- simplex needs, the last coordinate 0). The loss is nn.MSECriterion between the input (a vector of
-- nClasses, or a batch of them) and the target class's vertex (the target a class number, or a
-- vector of them for a batch). See http://arxiv.org/abs/1506.08230.

require 'nn.MSECriterion'

local ClassSimplexCriterion, parent = torch.class('nn.ClassSimplexCriterion', 'nn.MSECriterion')

-- The n+1 vertices of a regular simplex in R^n, one per row, each of norm 1. Vertex k lies in the
-- span of the first k axes with a positive k-th coordinate. Every vertex after k shares vertex k's
-- first k-1 coordinates (by symmetry), so the conditions |v_k| = 1 and v_j . v_k = -1/n fix
-- v_k[k] = sqrt(1 - |prefix|^2) and v_j[k] = (v_k[k]^2 - 1 - 1/n) / v_k[k] for all j > k.
local function simplexVertices(n)
   local v = torch.zeros(n + 1, n)
   for k = 1, n do
      local prefix = k > 1 and v[k]:narrow(1, 1, k - 1):norm() or 0
      local diag = math.sqrt(1 - prefix * prefix)
      v[k][k] = diag
      v:narrow(1, k + 1, n + 1 - k):select(2, k):fill((diag * diag - 1 - 1 / n) / diag)
   end
   return v
end

function ClassSimplexCriterion:__init(nClasses)
   parent.__init(self)
   assert(type(nClasses) == 'number' and nClasses > 1 and nClasses % 1 == 0,
      'nn.ClassSimplexCriterion: the number of classes must be an integer greater than 1')
   self.nClasses = nClasses
   -- Embedding in one dimension more than the simplex needs helps training (per the paper).
   local vertices = simplexVertices(nClasses - 1)
   self.simplex = torch.cat(vertices, torch.zeros(nClasses, 1), 2)
   self._target = torch.Tensor(nClasses)
end

-- The vertices of the target classes, in self._target (a vector, or one row per sample).
local function vertexTargets(self, target)
   if type(target) == 'number' then
      assert(target >= 1 and target <= self.nClasses and target % 1 == 0,
         string.format('nn.ClassSimplexCriterion: target %s out of range (1 to %d)', target, self.nClasses))
      self._target:resize(self.nClasses):copy(self.simplex[target])
   elseif torch.isTensor(target) then
      assert(target:dim() == 1, 'nn.ClassSimplexCriterion: the target must be a class number or a vector of them')
      local classes = target:long()
      if classes:nElement() > 0 and (classes:min() < 1 or classes:max() > self.nClasses) then
         error(string.format('nn.ClassSimplexCriterion: target out of range (1 to %d)', self.nClasses), 3)
      end
      self._target:resize(classes:nElement(), self.nClasses):index(self.simplex, 1, classes)
   else
      error('nn.ClassSimplexCriterion: the target must be a class number or a vector of them', 3)
   end
   return self._target
end

function ClassSimplexCriterion:updateOutput(input, target)
   local t = vertexTargets(self, target)
   assert(input:nElement() == t:nElement(), 'nn.ClassSimplexCriterion: the input must have nClasses values per target')
   return parent.updateOutput(self, input, t)
end

function ClassSimplexCriterion:updateGradInput(input, target)
   local t = vertexTargets(self, target)
   assert(input:nElement() == t:nElement(), 'nn.ClassSimplexCriterion: the input must have nClasses values per target')
   return parent.updateGradInput(self, input, t)
end

-- The dot product of each sample with every class vertex (one row per sample).
function ClassSimplexCriterion:getPredictions(input)
   if input:dim() == 1 then
      input = input:view(1, -1)
   end
   return torch.mm(input, self.simplex:t())
end

-- The class of largest dot product, per sample.
function ClassSimplexCriterion:getTopPrediction(input)
   local scores = self:getPredictions(input)
   local _, best = scores:max(scores:dim())
   return best:view(-1)
end

return ClassSimplexCriterion
