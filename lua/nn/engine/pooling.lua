-- Pooling over windows, shared by the max, average, sum, LP, adaptive and fractional pooling
-- modules in 1 to 3 dimensions.
--
-- Regular windows (a geometry, nn.engine.windows) are read as strided views of the padded
-- planes, one kernel offset at a time. Irregular windows (adaptive, fractional) go through an
-- index map: the planes are rows, x2 is L x S (L planes of S elements, the pooled dimensions
-- flattened), and the windows are `idx` (B x O x K, B = 1 when every plane has the same windows,
-- else L): window o of plane l holds the elements idx[l][o][1..K], 1-based positions in the
-- plane, S + 1 marking an element outside it (padding, or a shorter window); see
-- windows.combine and windows.indexMap. Each function below is one pass with plain tensor
-- inputs and outputs, so that a kernel can replace it.

local indexing = require 'nn.engine.indexing'
local kernels = require 'nn.engine.kernels'
local windows = require 'nn.engine.windows'

local pooling = {}

-- Irregular windows (index maps) ------------------------------------------------------------------

-- Index maps are made on the host; device data take them as CudaLongTensors, converted once per
-- map (maps are cached by geometry, see windows.indexMap) rather than at every use.
local onDevice = setmetatable({}, { __mode = 'k' })
local function indexFor(idx, like)
   if indexing.typeFor(like) == torch.type(idx) then return idx end
   local d = onDevice[idx]
   if not d then
      d = indexing.tensor(idx:type(torch.type(like)))
      onDevice[idx] = d
   end
   return d
end
pooling.indexFor = indexFor

-- The index map as L x (O*K) rows (a view; shared maps are expanded, not copied).
local function rows(idx, L)
   local B, O, K = idx:size(1), idx:size(2), idx:size(3)
   local r = idx:view(B, O * K)
   if B ~= L then r = r:expand(L, O * K) end
   return r
end

-- The window elements of x2 (L x S) as L x O x K, `fill` standing for elements outside the plane.
function pooling.gatherWindows(x2, idx, fill, buffer)
   local L, S = x2:size(1), x2:size(2)
   buffer = buffer or x2.new()
   buffer:resize(L, S + 1)
   buffer:narrow(2, 1, S):copy(x2)
   buffer:select(2, S + 1):fill(fill)
   return buffer:gather(2, rows(indexFor(idx, x2), L)):view(L, idx:size(2), idx:size(3))
end

-- Adds values (L x O x K, one per window element) onto gradX2 (L x S, not cleared here) at the
-- elements' positions; values of elements outside the plane are dropped.
function pooling.scatterWindows(gradX2, values, idx, buffer)
   local L, S = gradX2:size(1), gradX2:size(2)
   local O, K = idx:size(2), idx:size(3)
   buffer = buffer or gradX2.new()
   buffer:resize(L, S + 1):zero()
   buffer:scatterAdd(2, rows(indexFor(idx, gradX2), L), values:contiguous():view(L, O * K))
   gradX2:add(buffer:narrow(2, 1, S))
   return gradX2
end

-- The largest element of each window (L x O) and its position in the plane (L x O, LongTensor).
-- A window always holds at least one element of the plane, so the position is never S + 1.
function pooling.max(x2, idx, buffer)
   local win = pooling.gatherWindows(x2, idx, -math.huge, buffer)
   local L, O, K = win:size(1), win:size(2), win:size(3)
   local values, arg = win:max(3)
   local full = indexFor(idx, x2)
   if idx:size(1) ~= L then full = full:expand(L, O, K) end
   return values:view(L, O), full:gather(3, arg):view(L, O)
end

-- gradX2 (L x S) = gradOut2 (L x O) sent back to the maxima's positions.
function pooling.maxBackward(gradX2, gradOut2, positions)
   gradX2:zero():scatterAdd(2, positions, gradOut2)
   return gradX2
end

-- The sum of each window (L x O).
function pooling.sum(x2, idx, buffer)
   local win = pooling.gatherWindows(x2, idx, 0, buffer)
   return win:sum(3):view(win:size(1), win:size(2))
end

-- gradX2 (L x S, cleared here) = gradOut2 (L x O) spread over each window's elements.
function pooling.sumBackward(gradX2, gradOut2, idx, buffer)
   local L, O, K = gradX2:size(1), idx:size(2), idx:size(3)
   gradX2:zero()
   return pooling.scatterWindows(gradX2, gradOut2:contiguous():view(L, O, 1):expand(L, O, K), idx, buffer)
end

-- Regular windows ---------------------------------------------------------------------------------
-- x is lead... x size... (any strides) for a geometry g; the results are L x O, L the product of
-- the leading sizes.

-- The sum of each window.
function pooling.regularSum(x, g, buffer)
   local p, P, L = windows.padded(x, g, 0, buffer)
   local out = x.new(windows.shape({ L }, g, 'out')):zero()
   windows.eachOffset(p, g, P, L, function(_, v) out:add(v) end)
   return out:view(L, g.O)
end

-- gradX (lead... x size..., cleared here) = gradOut (L x O) spread over each window's elements.
function pooling.regularSumBackward(gradX, gradOut, g, scratch)
   local go = gradOut:contiguous():view(windows.shape({ gradOut:size(1) }, g, 'out'))
   gradX:zero()
   return windows.foldEach(gradX, g, scratch, function() return go end)
end

-- The largest element of each window and its 1-based position in its plane (LongTensor). Padding
-- counts as minus infinity; ties go to the first element in the window.
function pooling.regularMax(x, g, buffer)
   if kernels.has(x, 'maxPool') then
      local L = x:nElement() / g.S
      local values = x.new(L, g.O)
      local positions = torch.getmetatable(indexing.typeFor(x)).new(L, g.O)
      kernels.of(x).maxPool(values, positions, x:contiguous(), g)
      return values, positions
   end
   local p, P, L = windows.padded(x, g, -math.huge, buffer)
   local values, arg
   -- Host masks are ByteTensors; device ones are of the data's type (cutorch's comparisons), and
   -- so is the running arg there, converted to an index once at the end.
   local host = indexing.typeFor(x) == 'torch.LongTensor'
   local better = host and torch.ByteTensor() or x.new()
   windows.eachOffset(p, g, P, L, function(kk, v)
      if kk == 1 then
         values = v:clone()
         arg = (host and torch.LongTensor() or x.new()):resize(values:size()):fill(1)
      else
         better:gt(v, values)
         values:cmax(v)
         arg:maskedFill(better, kk)
      end
   end)
   local idx = indexFor(windows.indexMap(g), x)
   local positions = idx:expand(L, g.O, g.K):gather(3, indexing.tensor(arg):view(L, g.O, 1))
   return values:view(L, g.O), positions:view(L, g.O)
end

-- (sum of x^p over each window)^(1/p).
function pooling.regularLp(x, g, p, buffer)
   return pooling.regularSum(torch.pow(x, p), g, buffer):pow(1 / p)
end

-- gradX (lead... x size..., cleared here) for the LP pooling that gave out (L x O): each element x
-- of a window gets gradOut * x^(p-1) * out^(1-p); a window whose norm is zero passes no gradient
-- (its subgradient 0) rather than 0 * inf.
function pooling.regularLpBackward(gradX, gradOut, x, out, g, p, scratch)
   local scale = torch.pow(out, 1 - p):maskedFill(torch.eq(out, 0), 0):cmul(gradOut:contiguous():viewAs(out))
   pooling.regularSumBackward(gradX, scale, g, scratch)
   return gradX:cmul(torch.pow(x, p - 1))
end

-- Geometry and bookkeeping shared by the pooling modules -------------------------------------------

-- The regular geometry of a pooling module (spec: n, k, d, pad, dil, ceil) over the batch x
-- (N x C x size...): checks that the windows fit, names the module in errors.
function pooling.geometry(self, x, spec)
   local name = torch.type(self)
   local size, out = {}, {}
   local dil = spec.dil or {}
   windows.checkWindow(name, spec.k, spec.d, spec.pad, dil)
   for j = 1, spec.n do
      size[j] = x:size(2 + j)
      dil[j] = dil[j] or 1
      if spec.pad[j] * 2 > spec.k[j] then
         error(string.format('%s: padding (%d) must be at most half the window (%d)', name, spec.pad[j], spec.k[j]), 3)
      end
      out[j] = windows.outSize(size[j], spec.k[j], spec.d[j], spec.pad[j], spec.ceil, dil[j])
      if out[j] < 1 then
         error(string.format('%s: input of size %d is too small for a window of %d (padding %d, dilation %d)', name,
            size[j], spec.k[j], spec.pad[j], dil[j]), 3)
      end
   end
   return windows.geometry(size, spec.k, spec.d, spec.pad, dil, out)
end

-- The batch x as planes (N*C x S), contiguous.
function pooling.planes(x, n)
   local S = 1
   for j = 1, n do S = S * x:size(2 + j) end
   return x:contiguous():view(x:size(1) * x:size(2), S)
end

-- The largest elements of regular windows: fills self.output and self.indices (the maxima's
-- 1-based positions in their plane, N x C x out..., as the original keeps them).
function pooling.maxForward(self, input, spec)
   local x, isBatch = windows.batch(input, spec.n, torch.type(self))
   local g = pooling.geometry(self, x, spec)
   local N, C = x:size(1), x:size(2)
   local shape = windows.shape({ N, C }, g, 'out')
   if kernels.has(x, 'maxPool') and self.output:type() == x:type() then
      -- The kernel writes the maxima and their positions in place: no buffers, no copies.
      self.indices = indexing.buffer(self.indices, x)
      self.output:resize(shape)
      self.indices:resize(shape)
      if self.output:isContiguous() and self.indices:isContiguous() then
         kernels.of(x).maxPool(self.output, self.indices, x:contiguous(), g)
         self.output = windows.unbatch(self.output, isBatch)
         self.indices = windows.unbatch(self.indices, isBatch)
         return self.output, g
      end
   end
   self._buffer = self._buffer or x.new()
   local values, positions = pooling.regularMax(x, g, self._buffer)
   self.output:resize(shape):copy(values:view(shape))
   self.indices = positions:view(shape)
   self.output = windows.unbatch(self.output, isBatch)
   self.indices = windows.unbatch(self.indices, isBatch)
   return self.output, g
end

-- The gradient of pooling.maxForward.
function pooling.maxGradInput(self, input, gradOutput, n)
   local x, isBatch = windows.batch(input, n, torch.type(self))
   local N, C = x:size(1), x:size(2)
   if not self.indices or self.indices:nElement() ~= gradOutput:nElement() then
      error(torch.type(self) .. ': gradOutput does not match the last forward', 3)
   end
   self.gradInput:resize(x:size())
   if kernels.has(self.gradInput, 'maxPoolBackward') and self.gradInput:isContiguous()
      and gradOutput:type() == x:type() and torch.type(self.indices) == indexing.typeFor(x) then
      kernels.of(x).maxPoolBackward(self.gradInput:view(N * C, -1), gradOutput:contiguous():view(N * C, -1),
         self.indices:contiguous():view(N * C, -1))
      self.gradInput = windows.unbatch(self.gradInput, isBatch)
      return self.gradInput
   end
   pooling.maxBackward(self.gradInput:view(N * C, -1), gradOutput:contiguous():view(N * C, -1),
      indexing.tensor(self.indices):contiguous():view(N * C, -1))
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

-- The number of elements each window of a regular geometry divides by (a tensor of O): the
-- elements inside the padded input (includePad) or inside the input itself. Windows are boxes,
-- so this is the product of one count per dimension.
function pooling.divisor(g, includePad)
   local total = torch.ones(1)
   for j = 1, g.n do
      local c = torch.Tensor(g.out[j])
      for o = 1, g.out[j] do
         local first = (o - 1) * g.d[j] - g.pad[j]
         local last = first + g.k[j] -- exclusive
         if includePad then
            c[o] = math.min(last, g.size[j] + g.pad[j]) - first
         else
            c[o] = math.min(last, g.size[j]) - math.max(first, 0)
         end
      end
      total = torch.ger(total:view(-1), c):view(-1)
   end
   return total
end

-- Adaptive windows: output position i of an extent `out` over `size` covers
-- [floor((i-1)*size/out), ceil(i*size/out)), so that the windows tile the input whatever its
-- size. Returns the index map (1 x O x K, shorter windows padded with S + 1) and each window's
-- number of elements (a tensor of O).
function pooling.adaptiveIndex(sizes, outs)
   local pos = {}
   local count = torch.ones(1)
   for j = 1, #sizes do
      local size, out = sizes[j], outs[j]
      local first, len, kmax = {}, {}, 0
      for i = 1, out do
         first[i] = math.floor((i - 1) * size / out)
         len[i] = math.ceil(i * size / out) - first[i]
         kmax = math.max(kmax, len[i])
      end
      local p = torch.LongTensor(1, out, kmax):fill(-1)
      for i = 1, out do
         for kk = 1, len[i] do p[1][i][kk] = first[i] + kk - 1 end
      end
      pos[j] = p
      count = torch.ger(count, torch.Tensor(len)):view(-1)
   end
   return windows.combine(pos, sizes), count
end

-- Pseudorandom fractional windows (Graham, "Fractional Max-Pooling"): for each of the L planes, a
-- sample u in [0, 1) places out windows of `k` over `size`: window i (0-based) starts at
-- floor((i + u) * a) - floor(u * a), a = (size - k) / (out - 1), and the last one ends the input.
-- Returns positions L x out x k.
function pooling.fractionalPositions(u, size, k, out)
   local L = u:size(1)
   local starts = torch.Tensor(L, out)
   if out > 1 then
      local alpha = (size - k) / (out - 1)
      local i = torch.range(0, out - 2):view(1, out - 1):expand(L, out - 1)
      local uu = u:double():contiguous():view(L, 1)
      local s = (i + uu:expand(L, out - 1)):mul(alpha):floor()
      s:add(-1, torch.floor(uu * alpha):expand(L, out - 1))
      starts:narrow(2, 1, out - 1):copy(s)
   end
   starts:select(2, out):fill(size - k)
   local offsets = torch.range(0, k - 1):view(1, 1, k):expand(L, out, k)
   return (starts:view(L, out, 1):expand(L, out, k) + offsets):long()
end

-- Fractional max pooling over the batch x (N x C x size...): windows of k[j] placed by the
-- module's randomSamples (N x C x n, drawn anew each call unless :fixPoolingRegions() was
-- called; column[j] is the sample column of dimension j) so that dimension j has out[j]
-- windows. Fills self.output and self.indices.
function pooling.fractionalForward(self, input, n, k, out, column)
   local name = torch.type(self)
   local x, isBatch = windows.batch(input, n, name)
   local N, C = x:size(1), x:size(2)
   local sizes = {}
   for j = 1, n do
      sizes[j] = x:size(2 + j)
      if out[j] < 1 or out[j] + k[j] - 1 > sizes[j] then
         error(string.format('%s: %d windows of %d do not fit in an input of %d', name, out[j], k[j], sizes[j]), 3)
      end
   end
   local samples = self.randomSamples
   if samples == nil or samples:dim() ~= 3 or samples:size(1) ~= N or samples:size(2) ~= C then
      self.randomSamples = x.new(N, C, n):uniform()
   elseif not self.newRandomPool then
      samples:uniform()
   end
   local u = self.randomSamples:view(N * C, n)
   local pos = {}
   for j = 1, n do
      pos[j] = pooling.fractionalPositions(u:select(2, column[j]), sizes[j], k[j], out[j])
   end
   self._buffer = self._buffer or x.new()
   local values, positions = pooling.max(pooling.planes(x, n), windows.combine(pos, sizes), self._buffer)
   local shape = { N, C }
   for j = 1, n do shape[2 + j] = out[j] end
   shape = torch.LongStorage(shape)
   self.output:resize(shape):copy(values)
   self.indices = positions:view(shape)
   self.output = windows.unbatch(self.output, isBatch)
   self.indices = windows.unbatch(self.indices, isBatch)
   return self.output
end

-- The averages of regular windows (spec as for pooling.geometry), each divided by the elements
-- it covers inside the padded input (spec.includePad) or inside the input. Fills self.output.
local function averageSetup(self, input, spec)
   local x, isBatch = windows.batch(input, spec.n, torch.type(self))
   local g = pooling.geometry(self, x, spec)
   self._buffer = self._buffer or x.new()
   local divisor = pooling.divisor(g, spec.includePad):typeAs(x):view(1, g.O)
   return x, isBatch, g, divisor
end

function pooling.averageForward(self, input, spec)
   local x, isBatch, g, divisor = averageSetup(self, input, spec)
   local sums = pooling.regularSum(x, g, self._buffer)
   sums:cdiv(divisor:expandAs(sums))
   self.output:resize(windows.shape({ x:size(1), x:size(2) }, g, 'out')):copy(sums)
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function pooling.averageGradInput(self, input, gradOutput, spec)
   local x, isBatch, g, divisor = averageSetup(self, input, spec)
   local L = x:size(1) * x:size(2)
   local go = gradOutput:contiguous():view(L, g.O)
   go = torch.cdiv(go, divisor:expandAs(go))
   self.gradInput:resize(x:size())
   pooling.regularSumBackward(self.gradInput, go, g, self._buffer)
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

-- Max unpooling (the partial inverse of max pooling with non-overlapping windows): the pooled
-- planes (N*C x O) are put back at the maxima's positions in planes of `sizes` (all else zero).
local function unpoolSetup(self, input, sizes)
   local name = torch.type(self)
   if not self.indices or self.indices:nElement() ~= input:nElement() then
      error(name .. ": the input does not match the pooling module's last output", 3)
   end
   local x, isBatch = windows.batch(input, #sizes, name)
   local N, C = x:size(1), x:size(2)
   local shape = { N, C }
   for j = 1, #sizes do shape[2 + j] = sizes[j] end
   return x, isBatch, torch.LongStorage(shape), indexing.tensor(self.indices):contiguous():view(N * C, -1)
end

function pooling.unpoolForward(self, input, sizes)
   local x, isBatch, shape, positions = unpoolSetup(self, input, sizes)
   local L = positions:size(1)
   self.output:resize(shape):zero()
   self.output:view(L, -1):scatter(2, positions, x:contiguous():view(L, -1))
   self.output = windows.unbatch(self.output, isBatch)
   return self.output
end

function pooling.unpoolGradInput(self, input, gradOutput, sizes)
   local x, isBatch, _, positions = unpoolSetup(self, input, sizes)
   local L = positions:size(1)
   self.gradInput:resize(x:size())
   self.gradInput:view(L, -1):copy(gradOutput:contiguous():view(L, -1):gather(2, positions))
   self.gradInput = windows.unbatch(self.gradInput, isBatch)
   return self.gradInput
end

return pooling
