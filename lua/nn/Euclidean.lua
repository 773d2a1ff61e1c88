-- nn.Euclidean(inputSize, outputSize): y_j = ||x - w_j||, the distance from the input to each of
-- outputSize learnt templates (the columns of weight, inputSize x outputSize). 1-D input or a 2-D
-- batch. dy_j/dx = (x - w_j) / y_j and dy_j/dw_j = -(x - w_j) / y_j (taken as 0 where y_j is 0).
-- With fastBackward (the default) the backward pass reuses the differences of the last forward
-- pass, which must have had the same input.

local Euclidean, parent = torch.class('nn.Euclidean', 'nn.Module')

function Euclidean:__init(inputSize, outputSize)
   parent.__init(self)
   self.weight = torch.Tensor(inputSize, outputSize)
   self.gradWeight = torch.Tensor(inputSize, outputSize)
   self.gradInput:resize(inputSize)
   self.output:resize(outputSize)
   self.fastBackward = true
   self:reset()
end

function Euclidean:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:size(1))
   end
   self.weight:uniform(-stdv, stdv)
end

-- The input as a contiguous batch B x I (shared with WeightedEuclidean, as are the two below).
function Euclidean._batch(module, input)
   local I = module.weight:size(1)
   if input:dim() == 1 then
      return input:contiguous():view(1, I)
   elseif input:dim() == 2 then
      return input:contiguous()
   end
   error(torch.type(module) .. ': a 1-D input or a 2-D batch is expected')
end

-- B x I x O differences x_i - w_ij for every sample and template, into `buffer`.
function Euclidean._diffs(buffer, x, weight)
   local B, I, O = x:size(1), weight:size(1), weight:size(2)
   buffer:resize(B, I, O):copy(x:view(B, I, 1):expand(B, I, O))
   buffer:add(-1, weight:view(1, I, O):expand(B, I, O))
   return buffer
end

-- gradOutput / y, with 0 where y is 0 (B x O).
function Euclidean._gradOverOutput(output, gradOutput, B, O)
   local y = output:contiguous():view(B, O)
   local s = gradOutput.new():resize(B, O):copy(gradOutput:contiguous():view(B, O)):cdiv(y)
   s:maskedFill(y:eq(0), 0)
   return s
end

function Euclidean:updateOutput(input)
   local x = Euclidean._batch(self, input)
   self._repeat = self._repeat or input.new()
   local d = Euclidean._diffs(self._repeat, x, self.weight)
   local O = self.weight:size(2)
   local norms = torch.norm(d, 2, 2)
   if input:dim() == 1 then
      self.output:resize(O):copy(norms)
   else
      self.output:resize(x:size(1), O):copy(norms)
   end
   return self.output
end

-- The differences of the forward pass for `input` (recomputed unless fastBackward), and
-- gradOutput / y.
local function backwardTerms(self, input, gradOutput)
   local x = Euclidean._batch(self, input)
   local B, I, O = x:size(1), self.weight:size(1), self.weight:size(2)
   if not self.fastBackward or not self._repeat or self._repeat:nElement() ~= B * I * O then
      self:updateOutput(input)
   end
   return self._repeat, Euclidean._gradOverOutput(self.output, gradOutput, B, O), B, I, O
end

function Euclidean:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local d, s, B, I = backwardTerms(self, input, gradOutput)
   -- gradInput_bi = sum_j d_bij s_bj
   self.gradInput:resize(B, I, 1):bmm(d, s:view(B, s:size(2), 1))
   self.gradInput:resizeAs(input)
   return self.gradInput
end

function Euclidean:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local d, s, B, I, O = backwardTerms(self, input, gradOutput)
   -- gradWeight_ij -= sum_b d_bij s_bj
   local weighted = d.new():resizeAs(d):cmul(d, s:view(B, 1, O):expand(B, I, O))
   self.gradWeight:add(-scale, weighted:sum(1):view(I, O))
end

function Euclidean:type(type, tensorCache)
   if type then self:clearState() end
   return parent.type(self, type, tensorCache)
end

function Euclidean:clearState()
   nn.utils.clear(self, { '_input', '_output', '_gradOutput', '_weight', '_div', '_sum', '_expand', '_expand2',
      '_expand3', '_repeat', '_repeat2' })
   return parent.clearState(self)
end

return Euclidean
