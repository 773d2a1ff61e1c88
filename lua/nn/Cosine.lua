-- nn.Cosine(inputSize, outputSize): y_j = w_j . x / (||w_j|| ||x||), the cosine similarity of the
-- input with each of outputSize learnt vectors (the rows of weight); 1-D input or a 2-D batch.
-- The norms get 1e-12 added so that a zero vector gives 0, not NaN. With a = ||x||, n_j = ||w_j||:
--   dy_j/dx = w_j / (a n_j) - y_j x / a^2,   dy_j/dw_j = x / (a n_j) - y_j w_j / n_j^2.

local Cosine, parent = torch.class('nn.Cosine', 'nn.Module')

function Cosine:__init(inputSize, outputSize)
   parent.__init(self)
   self.weight = torch.Tensor(outputSize, inputSize)
   self.gradWeight = torch.Tensor(outputSize, inputSize)
   self:reset()
end

function Cosine:reset(stdv)
   if stdv then
      stdv = stdv * math.sqrt(3)
   else
      stdv = 1 / math.sqrt(self.weight:size(1))
   end
   self.weight:uniform(-stdv, stdv)
end

-- The input as a batch (B x I), its row norms a (B x 1) and the weight norms n (1 x O).
local function terms(self, input)
   local x
   if input:dim() == 1 then
      x = input:contiguous():view(1, -1)
   elseif input:dim() == 2 then
      x = input
   else
      error('nn.Cosine: the input must be a vector or a matrix')
   end
   local a = torch.norm(x, 2, 2):add(1e-12)
   self._weightNorm = torch.norm(self.weight, 2, 2):add(1e-12)
   return x, a, self._weightNorm:view(1, -1)
end

-- (B x O) outer quotient g / (a n).
local function scaled(g, a, n)
   local B, O = a:size(1), n:size(2)
   return g.new():resize(B, O):copy(g:contiguous():view(B, O)):cdiv(a:expand(B, O)):cdiv(n:expand(B, O))
end

function Cosine:updateOutput(input)
   local x, a, n = terms(self, input)
   local B, O = x:size(1), self.weight:size(1)
   local out = x.new():resize(B, O):mm(x, self.weight:t()):cdiv(a:expand(B, O)):cdiv(n:expand(B, O))
   if input:dim() == 1 then
      self.output:resize(O):copy(out)
   else
      self.output:resize(B, O):copy(out)
   end
   return self.output
end

function Cosine:updateGradInput(input, gradOutput)
   if not self.gradInput then return end
   local x, a = terms(self, input)
   local n = self._weightNorm:view(1, -1)
   local B, O = x:size(1), self.weight:size(1)
   local y = self.output:contiguous():view(B, O)
   local g = gradOutput:contiguous():view(B, O)
   -- sum_j g_j w_j / (a n_j)  -  (sum_j g_j y_j) x / a^2
   local gi = x.new():resize(B, x:size(2)):mm(scaled(g, a, n), self.weight)
   local gy = torch.cmul(g, y):sum(2):cdiv(a):cdiv(a)
   gi:addcmul(-1, x, gy:expandAs(x))
   self.gradInput:resizeAs(input):copy(gi:viewAs(input))
   return self.gradInput
end

function Cosine:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local x, a = terms(self, input)
   local n = self._weightNorm:view(1, -1)
   local B, O = x:size(1), self.weight:size(1)
   local y = self.output:contiguous():view(B, O)
   local g = gradOutput:contiguous():view(B, O)
   -- sum_b g_j x / (a n_j)  -  (sum_b g_j y_j) w_j / n_j^2
   self.gradWeight:addmm(scale, scaled(g, a, n):t(), x)
   local gy = torch.cmul(g, y):sum(1):cdiv(n):cdiv(n):view(O, 1)
   self.gradWeight:addcmul(-scale, self.weight, gy:expandAs(self.weight))
end

-- The weight moves by -lr times its gradient at the current weight: the gradient is found in a
-- scratch tensor first, since accGradParameters reads the weight it would be writing.
function Cosine:accUpdateGradParameters(input, gradOutput, lr)
   local gradWeight = self.gradWeight
   self._gradWeight = self._gradWeight or self.weight.new()
   self.gradWeight = self._gradWeight:resizeAs(self.weight):zero()
   local ok, err = pcall(self.accGradParameters, self, input, gradOutput, 1)
   self.gradWeight = gradWeight
   if not ok then error(err, 0) end
   self.weight:add(-lr, self._gradWeight)
end

Cosine.sharedAccUpdateGradParameters = Cosine.accUpdateGradParameters

function Cosine:type(type, tensorCache)
   if type then self:clearState() end
   return parent.type(self, type, tensorCache)
end

function Cosine:clearState()
   nn.utils.clear(self, { '_input', '_weight', '_gradOutput', '_sum', '_inputNorm', '_weightNorm', '_gradWeight' })
   return parent.clearState(self)
end

return Cosine
