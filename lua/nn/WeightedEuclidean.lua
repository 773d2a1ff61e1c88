-- nn.WeightedEuclidean(inputSize, outputSize): y_j = ||c_j * (x - w_j)||, the distance to each
-- learnt template w_j (the columns of weight) under a learnt diagonal scaling c_j (the columns of
-- diagCov, starting at 1). With d = x - w_j:
--   dy_j/dx = c_j^2 d / y_j,   dy_j/dw_j = -c_j^2 d / y_j,   dy_j/dc_j = c_j d^2 / y_j.

require 'nn.Euclidean'
local WeightedEuclidean, parent = torch.class('nn.WeightedEuclidean', 'nn.Module')

function WeightedEuclidean:__init(inputSize, outputSize)
   parent.__init(self)
   self.weight = torch.Tensor(inputSize, outputSize)
   self.gradWeight = torch.Tensor(inputSize, outputSize)
   self.diagCov = torch.Tensor(inputSize, outputSize)
   self.gradDiagCov = torch.Tensor(inputSize, outputSize)
   self.fastBackward = true
   self:reset()
end

function WeightedEuclidean:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:size(1))
   end
   self.weight:uniform(-stdv, stdv)
   self.diagCov:fill(1)
end

function WeightedEuclidean:updateOutput(input)
   local x = nn.Euclidean._batch(self, input)
   local B, I, O = x:size(1), self.weight:size(1), self.weight:size(2)
   self._repeat = self._repeat or input.new()
   local d = nn.Euclidean._diffs(self._repeat, x, self.weight)
   local scaled = d.new():resizeAs(d):cmul(d, self.diagCov:view(1, I, O):expand(B, I, O))
   local norms = torch.norm(scaled, 2, 2)
   if input:dim() == 1 then
      self.output:resize(O):copy(norms)
   else
      self.output:resize(B, O):copy(norms)
   end
   return self.output
end

-- The differences d (B x I x O), gradOutput / y (B x O), and the sizes.
local function backwardTerms(self, input, gradOutput)
   local x = nn.Euclidean._batch(self, input)
   local B, I, O = x:size(1), self.weight:size(1), self.weight:size(2)
   if not self.fastBackward or not self._repeat or self._repeat:nElement() ~= B * I * O then
      self:updateOutput(input)
   end
   return self._repeat, nn.Euclidean._gradOverOutput(self.output, gradOutput, B, O), B, I, O
end

-- c^2 d s, the gradient with respect to x for each template (B x I x O).
local function inputTerms(self, d, s, B, I, O)
   local c = self.diagCov:view(1, I, O):expand(B, I, O)
   local t = d.new():resizeAs(d):cmul(d, c):cmul(c)
   return t:cmul(s:view(B, 1, O):expand(B, I, O))
end

function WeightedEuclidean:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local d, s, B, I, O = backwardTerms(self, input, gradOutput)
   self.gradInput:resize(B, I):sum(inputTerms(self, d, s, B, I, O), 3)
   self.gradInput:resizeAs(input)
   return self.gradInput
end

function WeightedEuclidean:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local d, s, B, I, O = backwardTerms(self, input, gradOutput)
   self.gradWeight:add(-scale, inputTerms(self, d, s, B, I, O):sum(1):view(I, O))
   -- c d^2 s
   local t = d.new():resizeAs(d):cmul(d, d):cmul(self.diagCov:view(1, I, O):expand(B, I, O))
   t:cmul(s:view(B, 1, O):expand(B, I, O))
   self.gradDiagCov:add(scale, t:sum(1):view(I, O))
end

function WeightedEuclidean:parameters()
   return { self.weight, self.diagCov }, { self.gradWeight, self.gradDiagCov }
end

-- Both parameters move by their gradients directly (the gradients pointed at them for one call).
function WeightedEuclidean:accUpdateGradParameters(input, gradOutput, lr)
   local gradWeight, gradDiagCov = self.gradWeight, self.gradDiagCov
   self.gradWeight, self.gradDiagCov = self.weight, self.diagCov
   self:accGradParameters(input, gradOutput, -lr)
   self.gradWeight, self.gradDiagCov = gradWeight, gradDiagCov
end

function WeightedEuclidean:type(type, tensorCache)
   if type then self:clearState() end
   return parent.type(self, type, tensorCache)
end

function WeightedEuclidean:clearState()
   nn.utils.clear(self, { '_input', '_output', '_gradOutput', '_weight', '_diagCov', '_div', '_sum', '_expand',
      '_expand2', '_expand3', '_expand4', '_repeat', '_repeat2', '_repeat3' })
   return parent.clearState(self)
end

return WeightedEuclidean
