-- nn.MV([trans]): input {M, v}; y = M v (M^T v with trans). M is a matrix and v a vector, or a
-- batch of each (b x n x m and b x m) giving b x n.

local MV, parent = torch.class('nn.MV', 'nn.Module')

function MV:__init(trans)
   parent.__init(self)
   self.trans = trans or false
   assert(type(self.trans) == 'boolean', 'nn.MV: trans (transpose the matrix first) must be a boolean')
   self.gradInput = { torch.Tensor(), torch.Tensor() }
end

function MV:updateOutput(input)
   assert(#input == 2, 'nn.MV: the input must be a pair {matrix, vector}')
   local M, v = input[1], input[2]
   if M:dim() == 2 then
      assert(v:dim() == 1, 'nn.MV: with a 2-D matrix the vector must be 1-D')
      if self.trans then M = M:t() end
      assert(M:size(2) == v:size(1), 'nn.MV: the matrix and vector sizes do not match')
      self.output:resize(M:size(1)):mv(M, v)
   elseif M:dim() == 3 then
      assert(v:dim() == 2, 'nn.MV: with a batch of matrices the vectors must be 2-D')
      assert(M:size(1) == v:size(1), 'nn.MV: the two inputs must hold the same number of samples')
      if self.trans then M = M:transpose(2, 3) end
      assert(M:size(3) == v:size(2), 'nn.MV: the matrix and vector sizes do not match')
      self.output:resize(M:size(1), M:size(2), 1)
      self.output:bmm(M, v:contiguous():view(v:size(1), v:size(2), 1))
      self.output:resize(M:size(1), M:size(2))
   else
      error('nn.MV: the matrix must be 2-D or 3-D')
   end
   return self.output
end

-- dL/dM = g v^T (v g^T with trans); dL/dv = M^T g (M g with trans).
function MV:updateGradInput(input, gradOutput)
   local M, v = input[1], input[2]
   local gM, gv = self.gradInput[1], self.gradInput[2]
   gM:resizeAs(M)
   gv:resizeAs(v)
   if gradOutput:dim() == 2 then
      assert(M:dim() == 3 and v:dim() == 2, 'nn.MV: a 2-D gradOutput needs a batch of matrices')
      local b = M:size(1)
      local g = gradOutput:contiguous()
      local vv = v:contiguous()
      if self.trans then
         gM:bmm(vv:view(b, v:size(2), 1), g:view(b, 1, g:size(2)))
         gv:view(b, v:size(2), 1):bmm(M, g:view(b, g:size(2), 1))
      else
         gM:bmm(g:view(b, g:size(2), 1), vv:view(b, 1, v:size(2)))
         gv:view(b, v:size(2), 1):bmm(M:transpose(2, 3), g:view(b, g:size(2), 1))
      end
   else
      assert(M:dim() == 2 and v:dim() == 1, 'nn.MV: a 1-D gradOutput needs a 2-D matrix and a 1-D vector')
      if self.trans then
         gM:ger(v, gradOutput)
         gv:mv(M, gradOutput)
      else
         gM:ger(gradOutput, v)
         gv:mv(M:t(), gradOutput)
      end
   end
   return self.gradInput
end

return MV
