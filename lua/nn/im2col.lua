-- Windows over the last n dimensions of a tensor (n = 1, 2 or 3: temporal, spatial, volumetric),
-- shared by the convolutions and the pooling modules.
--
-- A geometry `g` describes the windows: g.n dimensions, and for each dimension j (in the tensor's
-- order: depth, height, width) g.size[j] the input extent, g.k[j] the window extent, g.d[j] the
-- step, g.pad[j] the padding added on both sides, g.dil[j] the spacing of the window's elements
-- (dilation) and g.out[j] the number of window positions. K = prod(k) is the number of elements
-- of a window and O = prod(out) the number of windows.
--
-- im2col: the windows of an image (C x size...) written as columns, a (C*K) x O matrix (row
-- (c, kernel offset), column window position); a convolution is then one matrix product.
-- col2im (fold) adds such columns back onto the positions they were taken from: the adjoint.
-- Both work on views (strided windows of a padded copy) with one copy each way.

local im2col = {}
nn.im2col = im2col

-- The Rust kernels (torch._nn) take contiguous float and double tensors; device tensors
-- (torch.CudaTensor, torch.CudaDoubleTensor) have kernels of the same name and arguments for
-- some of the passes (cutorch's _nn: unfold, fold, maxPool, maxPoolBackward); other types, and
-- passes without a device kernel, take the tensor-method paths below.
local kernels = torch._nn

-- The kernel table for tensors like t, or nil.
function im2col.kernels(t)
   local ty = torch.type(t)
   if ty == 'torch.FloatTensor' or ty == 'torch.DoubleTensor' then return kernels end
   if ty == 'torch.CudaTensor' or ty == 'torch.CudaDoubleTensor' then
      local cutorch = rawget(_G, 'cutorch')
      return cutorch and cutorch._C and cutorch._C._nn
   end
end

-- The fused kernel `name` (softMax, batchNorm, pointwiseLoss, classNLL, ...) for t, when t and
-- every other tensor given (nil ones skipped) are of t's type; else nil, and the caller takes its
-- tensor-method path (device tensors have none of these kernels: cunn relies on that path).
function im2col.fused(name, t, ...)
   local k = im2col.kernels(t)
   k = k and k[name]
   if not k then return nil end
   local ty = torch.type(t)
   for i = 1, select('#', ...) do
      local o = select(i, ...)
      if o ~= nil and torch.type(o) ~= ty then return nil end
   end
   return k
end

-- Whether tensors like t have the kernel `name` (default unfold, which every table has).
function im2col.hasKernel(t, name)
   local k = im2col.kernels(t)
   return k ~= nil and k[name or 'unfold'] ~= nil
end

-- The number of window positions of a window of k elements spaced by dil, moved by d over n (+
-- pad on both sides). ceil rounds up, but never so that the last window starts in the padding
-- after the input.
function im2col.outSize(n, k, d, pad, ceil, dil)
   dil = dil or 1
   local span = n + 2 * pad - (dil * (k - 1) + 1)
   local out
   if ceil then
      out = math.ceil(span / d) + 1
      if (out - 1) * d >= n + pad then out = out - 1 end
   else
      out = math.floor(span / d) + 1
   end
   return out
end

-- Window sizes, steps and dilations below 1, or negative padding, give no sensible output size
-- (a step of 0 divides by zero): refused in words that name the module and the setting.
function im2col.checkWindow(name, k, d, pad, dil)
   for j = 1, #k do
      local function refuse(what, v, least)
         -- Level 4: the pass that set the module up (refuse, checkWindow, setup, pass); the
         -- module's own method is often gone by then, having tail-called the pass.
         error(string.format('%s: the %s must be at least %d, got %s', name, what, least, tostring(v)), 4)
      end
      if not (k[j] >= 1) then refuse('kernel size', k[j], 1) end
      if not (d[j] >= 1) then refuse('stride', d[j], 1) end
      if not (pad[j] >= 0) then refuse('padding', pad[j], 0) end
      if dil and dil[j] and not (dil[j] >= 1) then refuse('dilation', dil[j], 1) end
   end
end

-- A geometry (see the top of this file); dil defaults to ones, out to the floor rule.
function im2col.geometry(size, k, d, pad, dil, out)
   local n = #size
   local g = { n = n, size = size, k = k, d = d, pad = pad, dil = dil or {}, out = out or {} }
   local K, O, S = 1, 1, 1
   for j = 1, n do
      g.dil[j] = g.dil[j] or 1
      g.out[j] = g.out[j] or im2col.outSize(size[j], k[j], d[j], pad[j], false, g.dil[j])
      K, O, S = K * k[j], O * g.out[j], S * size[j]
   end
   g.K, g.O, g.S = K, O, S
   return g
end

-- The geometry's sizes as a LongStorage after `lead` (a list of leading sizes); `which` names the
-- field ('size' or 'out').
function im2col.shape(lead, g, which)
   local s = {}
   for _, v in ipairs(lead) do s[#s + 1] = v end
   for j = 1, g.n do s[#s + 1] = g[which][j] end
   return torch.LongStorage(s)
end

-- A view of t's storage with the given offset (1-based), sizes and strides (Lua lists).
local function strided(t, offset, sizes, strides)
   return t.new():set(t:storage(), offset, torch.LongStorage(sizes), torch.LongStorage(strides))
end
im2col.strided = strided

-- The input as a batch N x C x size..., for a module working on `n` spatial dimensions, and
-- whether it was one (a C x size... input is seen as a batch of one, without copying).
function im2col.batch(input, n, name)
   if not torch.isTensor(input) then
      error(string.format('%s: a tensor input is expected, got %s', name, torch.type(input)), 3)
   end
   if input:dim() == n + 1 then
      return nn.utils.addSingletonDimension(input, 1), false
   elseif input:dim() == n + 2 then
      return input, true
   end
   error(string.format('%s: input must be %dD (planes x %s) or %dD (batch x planes x %s), got %dD', name, n + 1,
      n == 1 and 'length' or (n == 2 and 'height x width' or 'depth x height x width'), n + 2,
      n == 1 and 'length' or (n == 2 and 'height x width' or 'depth x height x width'), input:dim()), 3)
end

-- The extents of the padded input: big enough for the padding and for every window.
local function paddedSize(g)
   local P = {}
   for j = 1, g.n do
      P[j] = math.max(g.size[j] + 2 * g.pad[j], (g.out[j] - 1) * g.d[j] + (g.k[j] - 1) * g.dil[j] + 1)
   end
   return P
end

-- The leading sizes of x (all but its last g.n dimensions) and their product.
local function lead(x, g)
   local sizes, L = {}, 1
   for i = 1, x:dim() - g.n do
      sizes[i] = x:size(i)
      L = L * sizes[i]
   end
   return sizes, L
end

-- x (lead... x size..., any strides) in a contiguous buffer lead... x P... with x at offset pad
-- and `value` around it. Returns the buffer (x itself when it is contiguous and no padding is
-- needed), P and the product L of the leading sizes.
function im2col.padded(x, g, value, buffer)
   local P = paddedSize(g)
   local leadSizes, L = lead(x, g)
   local same = true
   for j = 1, g.n do
      if P[j] ~= g.size[j] then same = false end
   end
   if same and x:isContiguous() then return x, P, L end
   buffer = buffer or x.new()
   local sizes = {}
   for i, v in ipairs(leadSizes) do sizes[i] = v end
   for j = 1, g.n do sizes[#sizes + 1] = P[j] end
   buffer:resize(torch.LongStorage(sizes))
   if not same then buffer:fill(value or 0) end
   local inner = buffer
   local first = #leadSizes
   for j = 1, g.n do inner = inner:narrow(first + j, g.pad[j] + 1, g.size[j]) end
   inner:copy(x)
   return buffer, P, L
end

-- Row-major strides of a contiguous L x P... buffer.
local function strides(L, P)
   local s = {}
   local acc = 1
   for j = #P, 1, -1 do
      s[j + 1] = acc
      acc = acc * P[j]
   end
   s[1] = acc
   return s
end

-- The windows of a contiguous padded buffer p (L x P...) as a view L x k... x out... (no copy).
local function windows(p, g, P, L)
   local st = strides(L, P)
   local sizes, strs = { L }, { st[1] }
   for j = 1, g.n do
      sizes[#sizes + 1] = g.k[j]
      strs[#strs + 1] = st[j + 1] * g.dil[j]
   end
   for j = 1, g.n do
      sizes[#sizes + 1] = g.out[j]
      strs[#strs + 1] = st[j + 1] * g.d[j]
   end
   return strided(p, p:storageOffset(), sizes, strs)
end

-- The columns of x (lead... x size...): `cols` resized to L x K x O, L the product of the leading
-- sizes (for one C-plane image, a (C*K) x O matrix).
function im2col.unfold(cols, x, g, scratch)
   if im2col.hasKernel(x) then
      local _, L = lead(x, g)
      cols:resize(L, g.K, g.O)
      im2col.kernels(x).unfold(cols, x:contiguous(), g)
      return cols
   end
   local p, P, L = im2col.padded(x, g, 0, scratch)
   cols:resize(L, g.K, g.O)
   local sizes = { L }
   for j = 1, g.n do sizes[#sizes + 1] = g.k[j] end
   for j = 1, g.n do sizes[#sizes + 1] = g.out[j] end
   cols:view(torch.LongStorage(sizes)):copy(windows(p, g, P, L))
   return cols
end

-- Calls fn(kk, view) for each kernel offset kk = 1..K (the last dimension fastest), view (L x
-- out...) holding the element at that offset of every window of the contiguous padded buffer p
-- (L x P...); the view is only valid during the call. For a fixed offset distinct windows hold
-- distinct elements, so adding into a view never adds twice into one element.
function im2col.eachOffset(p, g, P, L, fn)
   local st = strides(L, P)
   local sizes, strs = { L }, { st[1] }
   for j = 1, g.n do
      sizes[j + 1], strs[j + 1] = g.out[j], st[j + 1] * g.d[j]
   end
   sizes, strs = torch.LongStorage(sizes), torch.LongStorage(strs)
   -- One view, moved from offset to offset (fn uses it at once).
   local view = p.new()
   local storage = p:storage()
   local base = p:storageOffset()
   local offset = {}
   for j = 1, g.n do offset[j] = 0 end
   for kk = 1, g.K do
      local at = base
      for j = 1, g.n do at = at + offset[j] * g.dil[j] * st[j + 1] end
      fn(kk, view:set(storage, at, sizes, strs))
      for j = g.n, 1, -1 do
         offset[j] = offset[j] + 1
         if offset[j] < g.k[j] then break end
         offset[j] = 0
      end
   end
end

-- Adds, for each kernel offset kk, source(kk) (L x out...) onto gradX (lead... x size..., not
-- cleared here) at the elements of the windows at that offset: the adjoint of reading windows.
function im2col.foldEach(gradX, g, scratch, source)
   local leadSizes, L = lead(gradX, g)
   local P = paddedSize(g)
   local same = true
   for j = 1, g.n do
      if P[j] ~= g.size[j] then same = false end
   end
   local p
   if same and gradX:isContiguous() then
      p = gradX
   else
      p = scratch or gradX.new()
      local sizes = {}
      for i, v in ipairs(leadSizes) do sizes[i] = v end
      for j = 1, g.n do sizes[#sizes + 1] = P[j] end
      p:resize(torch.LongStorage(sizes)):zero()
   end
   im2col.eachOffset(p, g, P, L, function(kk, view) view:add(source(kk)) end)
   if p ~= gradX then
      local inner = p
      local first = #leadSizes
      for j = 1, g.n do inner = inner:narrow(first + j, g.pad[j] + 1, g.size[j]) end
      gradX:add(inner)
   end
   return gradX
end

-- Adds the columns (L x K x O, contiguous) onto gradX (lead... x size..., not cleared here) at
-- the positions im2col.unfold took them from.
function im2col.fold(gradX, cols, g, scratch)
   if im2col.hasKernel(gradX) and gradX:isContiguous() and cols:isContiguous() then
      im2col.kernels(gradX).fold(gradX, cols, g)
      return gradX
   end
   local _, L = lead(gradX, g)
   local sizes, strs = { L }, { g.K * g.O }
   local acc = 1
   for j = g.n, 1, -1 do
      sizes[j + 1], strs[j + 1] = g.out[j], acc
      acc = acc * g.out[j]
   end
   local cbase = cols:storageOffset()
   return im2col.foldEach(gradX, g, scratch, function(kk)
      return strided(cols, cbase + (kk - 1) * g.O, sizes, strs)
   end)
end

-- Window index maps, for pooling: for each window position and each element of the window, the
-- 1-based position in the flattened input (size...), or S + 1 where the element falls outside
-- the input (in the padding, or past the end). `pos` lists, per dimension j, a tensor
-- (B x out_j x k_j) of 0-based positions along that dimension (B = 1 when every plane shares the
-- windows); the result is a LongTensor B x O x K.
function im2col.combine(pos, size)
   local n = #size
   local B = pos[1]:size(1)
   local full = { B }
   for j = 1, n do full[1 + j] = pos[j]:size(2) end
   for j = 1, n do full[1 + n + j] = pos[j]:size(3) end
   local fullSize = torch.LongStorage(full)
   local flat = torch.DoubleTensor(fullSize):zero()
   local bad = torch.DoubleTensor(fullSize):zero()
   local stride = 1
   for j = n, 1, -1 do
      local shape = {}
      for i = 1, 2 * n + 1 do shape[i] = 1 end
      shape[1], shape[1 + j], shape[1 + n + j] = pos[j]:size(1), pos[j]:size(2), pos[j]:size(3)
      local p = pos[j]:double():contiguous():view(torch.LongStorage(shape)):expand(fullSize)
      flat:add(stride, p)
      bad:add(torch.lt(p, 0):double()):add(torch.ge(p, size[j]):double())
      stride = stride * size[j]
   end
   flat:add(1):maskedFill(torch.gt(bad, 0), stride + 1)
   local O, K = 1, 1
   for j = 1, n do
      O, K = O * full[1 + j], K * full[1 + n + j]
   end
   return flat:long():view(B, O, K)
end

-- Per-dimension positions of regular windows (geometry g): 1 x out_j x k_j.
function im2col.regularPositions(g)
   local pos = {}
   for j = 1, g.n do
      local p = torch.LongTensor(1, g.out[j], g.k[j])
      for o = 1, g.out[j] do
         for kk = 1, g.k[j] do
            p[1][o][kk] = (o - 1) * g.d[j] - g.pad[j] + (kk - 1) * g.dil[j]
         end
      end
      pos[j] = p
   end
   return pos
end

-- The index map (1 x O x K) of a regular geometry, kept for the next call with the same one.
local indexCache = setmetatable({}, { __mode = 'v' })
function im2col.indexMap(g)
   local key = {}
   for j = 1, g.n do
      key[#key + 1] = table.concat({ g.size[j], g.k[j], g.d[j], g.pad[j], g.dil[j], g.out[j] }, ',')
   end
   key = table.concat(key, ';')
   local map = indexCache[key]
   if not map then
      map = im2col.combine(im2col.regularPositions(g), g.size)
      indexCache[key] = map
   end
   return map
end

-- Convolutions ------------------------------------------------------------------------------------
--
-- x is N x C x size...; the weights are G groups (G = 1 but for depthwise convolutions): the
-- matrix weights[gi] (nOutG x (C/G)*K) maps the columns of input planes (gi-1)*C/G+1 .. gi*C/G
-- to output planes (gi-1)*nOutG+1 .. gi*nOutG. Images are unfolded a chunk at a time, so that
-- the columns stay within about CHUNK elements whatever the batch size.

local CHUNK = 2 ^ 22

local function chunkSize(N, C, g)
   return math.max(1, math.min(N, math.floor(CHUNK / math.max(1, C * g.K * g.O))))
end

-- With the Rust kernels and one group, a chunk of b images is unfolded with the images side by
-- side ((C*K) x (b*O) columns), so that each pass is one matrix product over the whole chunk
-- instead of b small ones (a first convolution's 6 x 75 by 75 x 784 products run at a fraction
-- of BLAS's speed). `scratch` then holds the outputs or gradients of the chunk, planes first.
local function batched(x, weights)
   return #weights == 1 and im2col.hasKernel(x)
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
   if #weights ~= 1 or not im2col.hasKernel(x, 'convForward')
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
   im2col.kernels(x).unfold(cols:resize(x:size(2) * g.K, b * g.O), x:narrow(1, n0, b):contiguous(), g, b)
   return cols
end

-- The chunk's gradOut (b x nOut x O) planes first (nOut x (b*O)), in `scratch`.
local function planesFirst(scratch, go, n0, b)
   local nOut, O = go:size(2), go:size(3)
   return scratch:resize(nOut, b, O):copy(go:narrow(1, n0, b):transpose(1, 2)):view(nOut, b * O)
end

-- output (N x nOut x out..., resized here) = the convolution of x; `bias` (nOut) or nil.
function im2col.convForward(output, x, weights, bias, g, cols, scratch)
   local N, C = x:size(1), x:size(2)
   local G = #weights
   local nOutG = weights[1]:size(1)
   local nOut = G * nOutG
   local CgK = (C / G) * g.K
   output:resize(im2col.shape({ N, nOut }, g, 'out'))
   if convolvesDirectly(x, weights, g) and output:isContiguous() then
      local b = bias and bias:type() == x:type() and bias:contiguous() or nil
      kernels.convForward(output, x:contiguous(), weights[1]:contiguous(), b, g)
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
         local c = im2col.unfold(cols, x:narrow(1, n0, b), g, scratch):view(b, C * g.K, g.O)
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
function im2col.convBackward(gradX, gradOut, weights, g, cols, scratch)
   local N, C = gradX:size(1), gradX:size(2)
   local G = #weights
   local nOutG = weights[1]:size(1)
   local nOut = G * nOutG
   local CgK = (C / G) * g.K
   if convolvesDirectly(gradX, weights, g) and gradX:isContiguous() then
      kernels.convBackward(gradX, gradOut:contiguous(), weights[1]:contiguous(), g)
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
         im2col.kernels(gradX).fold(gradX:narrow(1, n0, b), cols, g, b)
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
      im2col.fold(gradX:narrow(1, n0, b), cols:view(b * C, g.K, g.O), g, scratch)
   end
   return gradX
end

-- gradWeights[gi] += scale * (the gradient of the loss with respect to weights[gi]).
function im2col.convAccGrad(gradWeights, x, gradOut, g, scale, cols, scratch)
   local N, C = x:size(1), x:size(2)
   local G = #gradWeights
   local nOutG = gradWeights[1]:size(1)
   local nOut = G * nOutG
   local CgK = (C / G) * g.K
   if convolvesDirectly(x, gradWeights, g) and gradWeights[1]:isContiguous() then
      kernels.convAccGrad(gradWeights[1], x:contiguous(), gradOut:contiguous(), g, scale)
      return
   end
   local go = gradOut:contiguous():view(N, nOut, g.O)
   -- Host BLAS takes the columns' transpose as it is; other types get a contiguous copy.
   local direct = im2col.hasKernel(x, 'convForward')
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
      local c = im2col.unfold(cols, x:narrow(1, n0, b), g, scratch):view(b, C * g.K, g.O)
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
function im2col.planeSums(gradOut)
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
   local x, isBatch = im2col.batch(input, spec.n, name)
   if x:size(2) ~= spec.nIn then
      error(string.format('%s: input has %d planes, expected %d', name, x:size(2), spec.nIn), 3)
   end
   im2col.checkWindow(name, spec.k, spec.d, spec.pad, spec.dil)
   local size = {}
   for j = 1, spec.n do size[j] = x:size(2 + j) end
   local g = im2col.geometry(size, spec.k, spec.d, spec.pad, spec.dil)
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

-- t without its leading batch dimension of one, when the input was not a batch.
local function unbatch(t, isBatch)
   if isBatch then return t end
   return t:select(1, 1)
end
im2col.unbatch = unbatch

function im2col.moduleForward(self, input)
   local x, isBatch, g = convSetup(self, input)
   local bias = self.bias and (self.convBias and self:convBias() or self.bias)
   im2col.convForward(self.output, x, self:convWeights(self.weight), bias, g, self.finput, self.fgradInput)
   self.output = unbatch(self.output, isBatch)
   return self.output
end

function im2col.moduleGradInput(self, input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, g = convSetup(self, input)
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   self.gradInput:resize(x:size())
   im2col.convBackward(self.gradInput, go, self:convWeights(self.weight), g, self.finput, self.fgradInput)
   self.gradInput = unbatch(self.gradInput, isBatch)
   return self.gradInput
end

function im2col.moduleAccGrad(self, input, gradOutput, scale)
   scale = scale or 1
   local x, isBatch, g = convSetup(self, input)
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   local gradWeights = self:convWeights(self.gradWeight, true)
   im2col.convAccGrad(gradWeights, x, go, g, scale, self.finput, self.fgradInput)
   if self.convGradDone then self:convGradDone(gradWeights) end
   if self.gradBias then
      local sums = im2col.planeSums(go)
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
   local xb, isBatch = im2col.batch(x, spec.n, name)
   im2col.checkWindow(name, spec.k, spec.d, spec.pad, spec.dil)
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
   return xb, isBatch, im2col.geometry(outSize, spec.k, spec.d, spec.pad, spec.dil, size), target
end

function im2col.fullForward(self, input)
   local x, isBatch, g = fullSetup(self, input)
   local spec = self:convSpec()
   self.output:resize(im2col.shape({ x:size(1), spec.nOut }, g, 'size'))
   im2col.convBackward(self.output, x, self:convWeights(self.weight), g, self.finput, self.fgradInput)
   if self.bias then
      local N = x:size(1)
      self.output:view(N, spec.nOut, -1):add(self.bias:view(1, spec.nOut, 1):expand(N, spec.nOut, g.S))
   end
   self.output = unbatch(self.output, isBatch)
   return self.output
end

function im2col.fullGradInput(self, input, gradOutput)
   if not self.gradInput then return end
   local x, isBatch, g, target = fullSetup(self, input)
   if not torch.isTensor(self.gradInput) then self.gradInput = self.gradInput[1] or x.new() end
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   im2col.convForward(self.gradInput, go, self:convWeights(self.weight), nil, g, self.finput, self.fgradInput)
   self.gradInput = unbatch(self.gradInput, isBatch)
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

function im2col.fullAccGrad(self, input, gradOutput, scale)
   scale = scale or 1
   local x, isBatch, g = fullSetup(self, input)
   local go = isBatch and gradOutput or nn.utils.addSingletonDimension(gradOutput, 1)
   local gradWeights = self:convWeights(self.gradWeight, true)
   im2col.convAccGrad(gradWeights, go, x, g, scale, self.finput, self.fgradInput)
   if self.convGradDone then self:convGradDone(gradWeights) end
   if self.gradBias then
      self.gradBias:add(scale, im2col.planeSums(go))
   end
end

return im2col
