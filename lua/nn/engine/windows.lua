-- Windows over the last n dimensions of a tensor (n = 1, 2 or 3: temporal, spatial, volumetric),
-- shared by the convolutions (nn.engine.convolution) and the pooling modules (nn.engine.pooling).
--
-- A geometry `g` describes the windows: g.n dimensions, and for each dimension j (in the tensor's
-- order: depth, height, width) g.size[j] the input extent, g.k[j] the window extent, g.d[j] the
-- step, g.pad[j] the padding added on both sides, g.dil[j] the spacing of the window's elements
-- (dilation) and g.out[j] the number of window positions. K = prod(k) is the number of elements
-- of a window and O = prod(out) the number of windows.
--
-- unfold (im2col): the windows of an image (C x size...) written as columns, a (C*K) x O matrix
-- (row (c, kernel offset), column window position); a convolution is then one matrix product.
-- fold (col2im) adds such columns back onto the positions they were taken from: the adjoint.
-- Both work on views (strided windows of a padded copy) with one copy each way, or on the
-- kernels of nn.engine.kernels. The index maps at the end list each window's elements, for the
-- pooling passes.

local kernels = require 'nn.engine.kernels'

local windows = {}

-- The number of window positions of a window of k elements spaced by dil, moved by d over n (+
-- pad on both sides). ceil rounds up, but never so that the last window starts in the padding
-- after the input.
function windows.outSize(n, k, d, pad, ceil, dil)
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
function windows.checkWindow(name, k, d, pad, dil)
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
function windows.geometry(size, k, d, pad, dil, out)
   local n = #size
   local g = { n = n, size = size, k = k, d = d, pad = pad, dil = dil or {}, out = out or {} }
   local K, O, S = 1, 1, 1
   for j = 1, n do
      g.dil[j] = g.dil[j] or 1
      g.out[j] = g.out[j] or windows.outSize(size[j], k[j], d[j], pad[j], false, g.dil[j])
      K, O, S = K * k[j], O * g.out[j], S * size[j]
   end
   g.K, g.O, g.S = K, O, S
   return g
end

-- The geometry's sizes as a LongStorage after `lead` (a list of leading sizes); `which` names the
-- field ('size' or 'out').
function windows.shape(lead, g, which)
   local s = {}
   for _, v in ipairs(lead) do s[#s + 1] = v end
   for j = 1, g.n do s[#s + 1] = g[which][j] end
   return torch.LongStorage(s)
end

-- A view of t's storage with the given offset (1-based), sizes and strides (Lua lists).
local function strided(t, offset, sizes, strides)
   return t.new():set(t:storage(), offset, torch.LongStorage(sizes), torch.LongStorage(strides))
end
windows.strided = strided

-- The input as a batch N x C x size..., for a module working on `n` spatial dimensions, and
-- whether it was one (a C x size... input is seen as a batch of one, without copying).
function windows.batch(input, n, name)
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

-- t without its leading batch dimension of one, when the input was not a batch (the inverse of
-- windows.batch).
function windows.unbatch(t, isBatch)
   if isBatch then return t end
   return t:select(1, 1)
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
function windows.padded(x, g, value, buffer)
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
local function windowView(p, g, P, L)
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
function windows.unfold(cols, x, g, scratch)
   if kernels.has(x) then
      local _, L = lead(x, g)
      cols:resize(L, g.K, g.O)
      kernels.of(x).unfold(cols, x:contiguous(), g)
      return cols
   end
   local p, P, L = windows.padded(x, g, 0, scratch)
   cols:resize(L, g.K, g.O)
   local sizes = { L }
   for j = 1, g.n do sizes[#sizes + 1] = g.k[j] end
   for j = 1, g.n do sizes[#sizes + 1] = g.out[j] end
   cols:view(torch.LongStorage(sizes)):copy(windowView(p, g, P, L))
   return cols
end

-- Calls fn(kk, view) for each kernel offset kk = 1..K (the last dimension fastest), view (L x
-- out...) holding the element at that offset of every window of the contiguous padded buffer p
-- (L x P...); the view is only valid during the call. For a fixed offset distinct windows hold
-- distinct elements, so adding into a view never adds twice into one element.
function windows.eachOffset(p, g, P, L, fn)
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
function windows.foldEach(gradX, g, scratch, source)
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
   windows.eachOffset(p, g, P, L, function(kk, view) view:add(source(kk)) end)
   if p ~= gradX then
      local inner = p
      local first = #leadSizes
      for j = 1, g.n do inner = inner:narrow(first + j, g.pad[j] + 1, g.size[j]) end
      gradX:add(inner)
   end
   return gradX
end

-- Adds the columns (L x K x O, contiguous) onto gradX (lead... x size..., not cleared here) at
-- the positions windows.unfold took them from.
function windows.fold(gradX, cols, g, scratch)
   if kernels.has(gradX) and gradX:isContiguous() and cols:isContiguous() then
      kernels.of(gradX).fold(gradX, cols, g)
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
   return windows.foldEach(gradX, g, scratch, function(kk)
      return strided(cols, cbase + (kk - 1) * g.O, sizes, strs)
   end)
end

-- Window index maps, for pooling: for each window position and each element of the window, the
-- 1-based position in the flattened input (size...), or S + 1 where the element falls outside
-- the input (in the padding, or past the end). `pos` lists, per dimension j, a tensor
-- (B x out_j x k_j) of 0-based positions along that dimension (B = 1 when every plane shares the
-- windows); the result is a LongTensor B x O x K.
function windows.combine(pos, size)
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
function windows.regularPositions(g)
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
function windows.indexMap(g)
   local key = {}
   for j = 1, g.n do
      key[#key + 1] = table.concat({ g.size[j], g.k[j], g.d[j], g.pad[j], g.dil[j], g.out[j] }, ',')
   end
   key = table.concat(key, ';')
   local map = indexCache[key]
   if not map then
      map = windows.combine(windows.regularPositions(g), g.size)
      indexCache[key] = map
   end
   return map
end

return windows
