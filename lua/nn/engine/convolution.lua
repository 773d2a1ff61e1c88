-- The convolutions' passes, shared by the convolution modules in 1 to 3 dimensions (plain,
-- dilated, depthwise, full (transposed), and the normalizations' local sums), over the windows of
-- nn.engine.windows.
--
-- x is N x C x size...; the weights are G groups (G = 1 but for depthwise convolutions): the
-- matrix weights[gi] (nOutG x (C/G)*K) maps the columns of input planes (gi-1)*C/G+1 .. gi*C/G
-- to output planes (gi-1)*nOutG+1 .. gi*nOutG. Images are unfolded a chunk at a time, so that
-- the columns stay within about CHUNK elements whatever the batch size.

local kernels = require 'nn.engine.kernels'
local windows = require 'nn.engine.windows'

local convolution = {}

local CHUNK = 2 ^ 22

local function chunkSize(N, C, g)
   return math.max(1, math.min(N, math.floor(CHUNK / math.max(1, C * g.K * g.O))))
end

-- With the Rust kernels and one group, a chunk of b images is unfolded with the images side by
-- side ((C*K) x (b*O) columns), so that each pass is one matrix product over the whole chunk
-- instead of b small ones (a first convolution's 6 x 75 by 75 x 784 products run at a fraction
-- of BLAS's speed). `scratch` then holds the outputs or gradients of the chunk, planes first.
local function batched(x, weights)
   return #weights == 1 and kernels.has(x)
end

-- With unit steps and one group, the Rust kernels convolve the images directly, with no columns
-- at all (kernels::nn_conv): a small network's columns are many times its images, and writing
-- and reading them costs more than the products. Large weights are the opposite case: their
-- products are big enough for BLAS to run near its peak, which the direct tiles do not reach
-- (measured on one core: 16 -> 32 planes 5x5, 12800 weights, 1.7-1.9x faster direct; 64 -> 64
-- 3x3, 36864 weights, as fast in the forward pass and 1.5x slower for the weight gradient).
-- `x` and the weight matrix must have one type.
local DIRECT_WEIGHTS = 16384
local function convolvesDirectly(x, weights, g)
   if #weights ~= 1 or not kernels.has(x, 'convForward')
      or torch.type(weights[1]) ~= torch.type(x) or weights[1]:nElement() > DIRECT_WEIGHTS then
      return false
   end
   for j = 1, g.n do
      if g.d[j] ~= 1 then return false end
   end
   return true
end

-- The columns of images n0 .. n0+b-1 of x, side by side: cols resized to (C*K) x (b*O).
local function unfoldChunk(cols, x, g, n0, b)
   kernels.of(x).unfold(cols:resize(x:size(2) * g.K, b * g.O), x:narrow(1, n0, b):contiguous(), g, b)
   return cols
end

-- The chunk's gradOut (b x nOut x O) planes first (nOut x (b*O)), in `scratch`.
local function planesFirst(scratch, go, n0, b)
   local nOut, O = go:size(2), go:size(3)
   return scratch:resize(nOut, b, O):copy(go:narrow(1, n0, b):transpose(1, 2)):view(nOut, b * O)
end

-- output (N x nOut x out..., resized here) = the convolution of x; `bias` (nOut) or nil.
function convolution.forward(output, x, weights, bias, g, cols, scratch)
   local N, C = x:size(1), x:size(2)
   local G = #weights
   local nOutG = weights[1]:size(1)
   local nOut = G * nOutG
   local CgK = (C / G) * g.K
   output:resize(windows.shape({ N, nOut }, g, 'out'))
   if convolvesDirectly(x, weights, g) and output:isContiguous() then
      local b = bias and bias:type() == x:type() and bias:contiguous() or nil
      kernels.host.convForward(output, x:contiguous(), weights[1]:contiguous(), b, g)
      if bias and not b then
         output:view(N, nOut, g.O):add(bias:view(1, nOut, 1):expand(N, nOut, g.O))
      end
      return output
   end
   local out = output:view(N, nOut, g.O)
   local B = chunkSize(N, C, g)
   if batched(x, weights) then
      scratch = scratch or x.new()
      for n0 = 1, N, B do
         local b = math.min(B, N - n0 + 1)
         local prod = scratch:resize(nOut, b * g.O):mm(weights[1], unfoldChunk(cols, x, g, n0, b))
         out:narrow(1, n0, b):copy(prod:view(nOut, b, g.O):transpose(1, 2))
      end
   else
      for n0 = 1, N, B do
         local b = math.min(B, N - n0 + 1)
         local c = windows.unfold(cols, x:narrow(1, n0, b), g, scratch):view(b, C * g.K, g.O)
         for i = 1, b do
            local o = out[n0 + i - 1]
            for gi = 1, G do
               local og = o:narrow(1, (gi - 1) * nOutG + 1, nOutG)
               og:addmm(0, og, 1, weights[gi], c[i]:narrow(1, (gi - 1) * CgK + 1, CgK))
            end
         end
      end
   end
   if bias then
      out:add(bias:view(1, nOut, 1):expand(N, nOut, g.O))
   end
   return output
end

-- gradX (N x C x size..., sized by the caller, cleared here) = the adjoint of the convolution
-- applied to gradOut (N x nOut x out...).
function convolution.backward(gradX, gradOut, weights, g, cols, scratch)
   local N, C = gradX:size(1), gradX:size(2)
   local G = #weights
   local nOutG = weights[1]:size(1)
   local nOut = G * nOutG
   local CgK = (C / G) * g.K
   if convolvesDirectly(gradX, weights, g) and gradX:isContiguous() then
      kernels.host.convBackward(gradX, gradOut:contiguous(), weights[1]:contiguous(), g)
      return gradX
   end
   gradX:zero()
   local go = gradOut:contiguous():view(N, nOut, g.O)
   local B = chunkSize(N, C, g)
   if batched(gradX, weights) and gradX:isContiguous() then
      scratch = scratch or gradX.new()
      for n0 = 1, N, B do
         local b = math.min(B, N - n0 + 1)
         cols:resize(CgK, b * g.O):mm(weights[1]:t(), planesFirst(scratch, go, n0, b))
         kernels.of(gradX).fold(gradX:narrow(1, n0, b), cols, g, b)
      end
      return gradX
   end
   for n0 = 1, N, B do
      local b = math.min(B, N - n0 + 1)
      cols:resize(b, C * g.K, g.O)
      for i = 1, b do
         for gi = 1, G do
            local cg = cols[i]:narrow(1, (gi - 1) * CgK + 1, CgK)
            cg:addmm(0, cg, 1, weights[gi]:t(), go[n0 + i - 1]:narrow(1, (gi - 1) * nOutG + 1, nOutG))
         end
      end
      windows.fold(gradX:narrow(1, n0, b), cols:view(b * C, g.K, g.O), g, scratch)
   end
   return gradX
end

-- gradWeights[gi] += scale * (the gradient of the loss with respect to weights[gi]).
function convolution.accGrad(gradWeights, x, gradOut, g, scale, cols, scratch)
   local N, C = x:size(1), x:size(2)
   local G = #gradWeights
   local nOutG = gradWeights[1]:size(1)
   local nOut = G * nOutG
   local CgK = (C / G) * g.K
   if convolvesDirectly(x, gradWeights, g) and gradWeights[1]:isContiguous() then
      kernels.host.convAccGrad(gradWeights[1], x:contiguous(), gradOut:contiguous(), g, scale)
      return
   end
   local go = gradOut:contiguous():view(N, nOut, g.O)
   -- Host BLAS takes the columns' transpose as it is; other types get a contiguous copy.
   local direct = kernels.has(x, 'convForward')
   local colsT = not direct and x.new(g.O, CgK) or nil
   local B = chunkSize(N, C, g)
   if batched(x, gradWeights) then
      scratch = scratch or x.new()
      for n0 = 1, N, B do
         local b = math.min(B, N - n0 + 1)
         gradWeights[1]:addmm(scale, planesFirst(scratch, go, n0, b), unfoldChunk(cols, x, g, n0, b):t())
      end
      return
   end
   for n0 = 1, N, B do
      local b = math.min(B, N - n0 + 1)
      local c = windows.unfold(cols, x:narrow(1, n0, b), g, scratch):view(b, C * g.K, g.O)
      for i = 1, b do
         for gi = 1, G do
            local ct = c[i]:narrow(1, (gi - 1) * CgK + 1, CgK):t()
            if colsT then ct = colsT:copy(ct) end
            gradWeights[gi]:addmm(scale, go[n0 + i - 1]:narrow(1, (gi - 1) * nOutG + 1, nOutG), ct)
         end
      end
   end
end

-- The sum of gradOut (N x nOut x ...) over everything but its planes: the bias's gradient.
function convolution.planeSums(gradOut)
   local N, nOut = gradOut:size(1), gradOut:size(2)
   return gradOut:contiguous():view(N, nOut, -1):sum(3):sum(1):view(nOut)
end

-- The convolution modules' shared passes. A module provides:
--   convSpec(): {n, nIn, k, d, pad, dil}, in the tensor's dimension order;
--   convWeights(w, forGradient): its weight w (or gradient) as the list of group matrices; with
--     forGradient, matrices to accumulate the gradient in, which convGradDone(matrices), when the
--     module has it, then moves into gradWeight;
--   convBias() and accBias(sums, scale), when its bias is not one value per output plane.
-- Scratch space lives in finput and fgradInput, as in the original.

local function convSetup(self, input)
   local spec = self:convSpec()
   local name = torch.type(self)
   local x, isBatch = windows.batch(input, spec.n, name)
   if x:size(2) ~= spec.nIn then
      error(string.format('%s: input has %d planes, expected %d', name, x:size(2), spec.nIn), 3)
   end
   windows.checkWindow(name, spec.k, spec.d, spec.pad, spec.dil)
   local size = {}
   for j = 1, spec.n do size[j] = x:size(2 + j) end
   local g = windows.geometry(size, spec.k, spec.d, spec.pad, spec.dil)
   for j = 1, spec.n do
      if g.out[j] < 1 then
         local dims = {}
         for i = 1, spec.n do dims[i] = size[i] end
         error(string.format('%s: input of size %s is too small for the kernel (output would be empty)', name,
            table.concat(dims, 'x')), 3)
      end
   end
   self.finput = self.finput or x.new()
   self.fgradInput = self.fgradInput or x.new()
   return x, isBatch, g
end

function convolution.moduleForward(self, input)
   local x, isBatch, g = convSetup(self, input)
   local bias = self.bias and (self.convBias and self:convBias() or self.bias)
   convolution.forward(self.output, x, self:convWeights(self.weight), bias, g, self.finput, self.fgradInput)
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function convolution.moduleGradInput(self, input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, g = convSetup(self, input)
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   self.gradInput:resize(x:size())
   convolution.backward(self.gradInput, go, self:convWeights(self.weight), g, self.finput, self.fgradInput)
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function convolution.moduleAccGrad(self, input, gradOutput, scale)
   scale = scale or 1
   local x, isBatch, g = convSetup(self, input)
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   local gradWeights = self:convWeights(self.gradWeight, true)
   convolution.accGrad(gradWeights, x, go, g, scale, self.finput, self.fgradInput)
   if self.convGradDone then self:convGradDone(gradWeights) end
   if self.gradBias then
      local sums = convolution.planeSums(go)
      if self.accBias then
         self:accBias(sums, scale)
      else
         self.gradBias:add(scale, sums)
      end
   end
end

-- The transposed ("full") convolutions: the adjoint of a convolution, so their passes are the
-- convolution's with the roles of input and output exchanged. The module's convSpec() also gives
-- adj (extra output rows/columns at the end); the input may be {input, target}, the target's
-- last n sizes then giving the output size. The geometry is the output's: its windows are at
-- the input's positions.

local function fullSetup(self, input)
   local spec = self:convSpec()
   local name = torch.type(self)
   local x, target = input, nil
   if type(input) == 'table' and not torch.isTensor(input) then x, target = input[1], input[2] end
   local xb, isBatch = windows.batch(x, spec.n, name)
   windows.checkWindow(name, spec.k, spec.d, spec.pad, spec.dil)
   if xb:size(2) ~= spec.nIn then
      error(string.format('%s: input has %d planes, expected %d', name, xb:size(2), spec.nIn), 3)
   end
   local size, outSize = {}, {}
   for j = 1, spec.n do
      size[j] = xb:size(2 + j)
      local adj = spec.adj[j]
      if target then
         local t = target:size(target:dim() - spec.n + j)
         adj = (t + 2 * spec.pad[j] - spec.k[j]) % spec.d[j]
      end
      outSize[j] = (size[j] - 1) * spec.d[j] - 2 * spec.pad[j] + (spec.k[j] - 1) * spec.dil[j] + 1 + adj
      if outSize[j] < 1 then
         error(string.format('%s: the output would be empty (input size %d, kernel %d, padding %d)', name, size[j],
            spec.k[j], spec.pad[j]), 3)
      end
   end
   self.finput = self.finput or xb.new()
   self.fgradInput = self.fgradInput or xb.new()
   return xb, isBatch, windows.geometry(outSize, spec.k, spec.d, spec.pad, spec.dil, size), target
end

function convolution.fullForward(self, input)
   local x, isBatch, g = fullSetup(self, input)
   local spec = self:convSpec()
   self.output:resize(windows.shape({ x:size(1), spec.nOut }, g, 'size'))
   convolution.backward(self.output, x, self:convWeights(self.weight), g, self.finput, self.fgradInput)
   if self.bias then
      local N = x:size(1)
      self.output:view(N, spec.nOut, -1):add(self.bias:view(1, spec.nOut, 1):expand(N, spec.nOut, g.S))
   end
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function convolution.fullGradInput(self, input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, g, target = fullSetup(self, input)
   if not torch.isTensor(self.gradInput) then self.gradInput = self.gradInput[1] or x.new() end
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   convolution.forward(self.gradInput, go, self:convWeights(self.weight), nil, g, self.finput, self.fgradInput)
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   if target then
      -- The target only gives a size: its gradient is zero, one stored zero seen in its shape.
      self.zeroScalar = self.zeroScalar or target.new(1):zero()
      local ones = {}
      for i = 1, target:dim() do ones[i] = 1 end
      local zero = self.zeroScalar:view(torch.LongStorage(ones)):expandAs(target)
      self.gradInput = { self.gradInput, zero }
   end
   return self.gradInput
end

function convolution.fullAccGrad(self, input, gradOutput, scale)
   scale = scale or 1
   local x, isBatch, g = fullSetup(self, input)
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   local gradWeights = self:convWeights(self.gradWeight, true)
   convolution.accGrad(gradWeights, go, x, g, scale, self.finput, self.fgradInput)
   if self.convGradDone then self:convGradDone(gradWeights) end
   if self.gradBias then
      self.gradBias:add(scale, convolution.planeSums(go))
   end
end

return convolution
