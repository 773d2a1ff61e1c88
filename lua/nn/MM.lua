-- nn.MM([transA, transB]): input {A, B}; y = op(A) op(B), where op transposes when asked. A and B
-- are matrices, or batches of them (b x n x m) multiplied pairwise.

local MM, parent = torch.class('nn.MM', 'nn.Module')

function MM:__init(transA, transB)
   parent.__init(self)
   self.transA = transA or false
   self.transB = transB or false
   self.gradInput = { torch.Tensor(), torch.Tensor() }
end

-- `t` transposed over its last two dimensions when `trans`.
local function op(t, trans)
   if not trans then return t end
   return t:transpose(t:dim() - 1, t:dim())
end

function MM:updateOutput(input)
   assert(#input == 2, 'nn.MM: the input must be a pair {A, B}')
   local a, b = op(input[1], self.transA), op(input[2], self.transB)
   assert(a:dim() == b:dim() and (a:dim() == 2 or a:dim() == 3),
      'nn.MM: A and B must both be matrices or both batches of matrices')
   if a:dim() == 2 then
      assert(a:size(2) == b:size(1), 'nn.MM: the matrix sizes do not match')
      self.output:resize(a:size(1), b:size(2)):mm(a, b)
   else
      assert(a:size(1) == b:size(1), 'nn.MM: the two inputs must hold the same number of matrices')
      assert(a:size(3) == b:size(2), 'nn.MM: the matrix sizes do not match')
      self.output:resize(a:size(1), a:size(2), b:size(3)):bmm(a, b)
   end
   return self.output
end

-- With C = A'B' (A' = op(A)): dA' = G B'^T and dB' = A'^T G, transposed back where op transposed.
function MM:updateGradInput(input, gradOutput)
   local A, B = input[1], input[2]
   local a, b = op(A, self.transA), op(B, self.transB)
   local gA, gB = self.gradInput[1], self.gradInput[2]
   gA:resizeAs(A)
   gB:resizeAs(B)
   local batch = A:dim() == 3
   local mul = function(res, x, y)
      if batch then res:bmm(x, y) else res:mm(x, y) end
   end
   if self.transA then
      mul(gA, b, op(gradOutput, true))
   else
      mul(gA, gradOutput, op(b, true))
   end
   if self.transB then
      mul(gB, op(gradOutput, true), a)
   else
      mul(gB, op(a, true), gradOutput)
   end
   return self.gradInput
end

return MM
