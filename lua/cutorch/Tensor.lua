-- The maths of the device tensors in Torch's calling forms: `x:f(...)` works in place on x,
-- `res:f(src, ...)` writes into res, `torch.f(src, ...)` returns a new tensor and
-- `torch.f(res, src, ...)` writes into res. Most ops are native and bound by the host's table of
-- argument forms (src/cuda/lua/math.rs); the ones here are built on libcutorch's primitives, each
-- called with every operand explicit.
--
-- Returns { methods = ..., functions = ... }: methods for the device classes, and the torch.*
-- functions that device tensors dispatch to (cutorch/init.lua installs both).

local C = require 'libcutorch'
local torch = torch

local methods, functions = {}, {}

local function isCuda(v)
   return type(v) == 'userdata' and cutorch._isCudaTensor(v)
end

local function describe(...)
   local names = {}
   for i = 1, select('#', ...) do
      local v = select(i, ...)
      names[i] = torch.typename(v) or type(v)
   end
   return #names > 0 and table.concat(names, ' ') or 'no arguments'
end

local function invalid(name, usage, ...)
   error(string.format('%s: invalid arguments: %s\nexpected arguments: %s', name, describe(...), usage), 3)
end

-- The elementwise maths, the comparisons, the matrix products and dot, the reductions sum, prod,
-- mean, max, min, norm, cumsum and cumprod, and the sorts (sort, topk, kthvalue, median, mode) are
-- native (src/cuda/lua/math.rs, which installs every op of the host's table of argument forms that
-- the device carries out): bound by that table, with its error text.
for k, f in pairs(C.maths.methods) do methods[k] = f end
for k, f in pairs(C.maths.functions) do functions[k] = f end

local pointwise = C.pointwise

-- x:maskedFill(mask, v): v where mask is not 0; the mask a device tensor of x's type with as many
-- elements (what the comparisons give).
methods.maskedFill = function(x, mask, v, ...)
   if not (isCuda(x) and isCuda(mask) and type(v) == 'number') or select('#', ...) > 0 then
      invalid('maskedFill', 'x:maskedFill(mask, number)', x, mask, v, ...)
   end
   return pointwise('maskedFill', 'masked_fill', x, x, mask, nil, v)
end
functions.maskedFill = methods.maskedFill

-- The ops below are built from others; their calls are bound by the host's table of forms all the
-- same: bind(name, isMethod, ...) gives the result (or nil), the source, the other tensors, the
-- numbers (defaults filled in) and the booleans, or raises Torch's "invalid arguments" error.
local bind = C.bindForms

-- Hands a result built apart back: into the caller's tensor when one was given.
local function deliver(res, out)
   if res == nil then return out end
   return res:resizeAs(out):copy(out)
end

local function floatOnly(name, x)
   if torch.typename(x) == 'torch.CudaLongTensor' then
      error(name .. ': not supported for torch.CudaLongTensor (only torch.CudaTensor and torch.CudaDoubleTensor)', 3)
   end
end

-- var, std: x:f([biased]) a number, x:f(dim [, biased]) a tensor (biased true: divide by n, not
-- n - 1); torch.f([res,] x [, dim] [, biased]). dist: the p-norm of the difference.
for name, root in pairs { var = false, std = true } do
   local function f(...)
      local res, x, _, n, b = bind(name, false, ...)
      floatOnly(name, x)
      local dim, biased = n[1], b[1]
      if dim == nil then
         local count = x:nElement()
         local d = x - x:mean()
         local v = d:cmul(d):sum() / (biased and count or (count - 1))
         return root and math.sqrt(v) or v
      end
      local count = x:size(dim)
      local d = x - x:mean(dim):expandAs(x)
      local v = d:cmul(d):sum(dim):div(biased and count or (count - 1))
      return deliver(res, root and v:sqrt() or v)
   end
   methods[name], functions[name] = f, f
end

methods.dist = function(...)
   local _, x, t, n = bind('dist', false, ...)
   return (x - t[1]):norm(n[1])
end
functions.dist = methods.dist

---------------------------------------------------------------------------------------------------
-- cat: torch.cat([res,] x1, x2 [, dim]), torch.cat([res,] {x1, ...} [, dim]); x:cat(y [, dim]) is a
-- new tensor, res:cat(x1, x2 [, dim]) and res:cat({x1, ...} [, dim]) write into res. The default dimension is the last; negative
-- ones count from the end. Tensors with no element are skipped.

local function catInto(res, list, dim)
   local nd, first = 0, nil
   for i, t in ipairs(list) do
      if not isCuda(t) then error('cat: argument ' .. i .. ' is a ' .. (torch.typename(t) or type(t)) .. ', expected a CUDA tensor', 3) end
      if t:nElement() > 0 then
         first = first or t
         nd = math.max(nd, t:dim())
      end
   end
   if first == nil then return res or (list[1] and list[1].new()) end
   dim = dim or nd
   if dim < 0 then dim = nd + dim + 1 end
   if dim < 1 or dim > nd then error(string.format('cat: dimension %d out of range of %dD tensors', dim, nd), 3) end
   local size, total = first:size():totable(), 0
   for i, t in ipairs(list) do
      if t:nElement() > 0 then
         if t:dim() ~= nd then error(string.format('cat: tensor %d has %d dimensions, expected %d', i, t:dim(), nd), 3) end
         for d = 1, nd do
            if d ~= dim and t:size(d) ~= size[d] then
               error(string.format('cat: tensor %d has size %d in dimension %d, expected %d', i, t:size(d), d, size[d]), 3)
            end
         end
         total = total + t:size(dim)
      end
   end
   size[dim] = total
   res = res or first.new()
   res:resize(torch.LongStorage(size))
   local offset = 1
   for _, t in ipairs(list) do
      if t:nElement() > 0 then
         res:narrow(dim, offset, t:size(dim)):copy(t)
         offset = offset + t:size(dim)
      end
   end
   return res
end

functions.cat = function(a, b, c, d)
   if type(a) == 'table' and not isCuda(a) then return catInto(nil, a, b) end
   if type(b) == 'table' and not isCuda(b) then return catInto(a, b, c) end
   if isCuda(c) then return catInto(a, { b, c }, d) end
   return catInto(nil, { a, b }, c)
end

methods.cat = function(self, a, b, c)
   -- res:cat({x1, ...} [, dim]) writes into res, as on the host.
   if type(a) == 'table' and not isCuda(a) then return catInto(self, a, b) end
   if isCuda(b) then return catInto(self, { a, b }, c) end
   return catInto(nil, { self, a }, b)
end

---------------------------------------------------------------------------------------------------
-- Scans, triangles and diagonals.

-- k of diag, tril and triu: an integer.
local function integerK(name, k)
   if k ~= math.floor(k) then error(string.format('%s: k must be an integer, got %s', name, k), 3) end
   return k
end

-- tril, triu: the elements on and below (above) diagonal k, zeros elsewhere.
for _, name in ipairs { 'tril', 'triu' } do
   methods[name] = function(...)
      local res, src, _, n = bind(name, false, ...)
      local k = integerK(name, n[1])
      if src:dim() ~= 2 then error(string.format('%s: expected a matrix, got %dD tensor', name, src:dim()), 2) end
      return pointwise(name, name, res, src, nil, nil, k, src:size(2))
   end
   functions[name] = methods[name]
end

-- A view of diagonal k of matrix m, or nil when it has no element.
local function diagonal(m, k)
   local rows, cols = m:size(1), m:size(2)
   local first, len
   if k >= 0 then
      first, len = k * m:stride(2), math.min(rows, cols - k)
   else
      first, len = -k * m:stride(1), math.min(rows + k, cols)
   end
   if len <= 0 then return nil end
   return m.new(m:storage(), m:storageOffset() + first, torch.LongStorage { len },
      torch.LongStorage { m:stride(1) + m:stride(2) })
end

-- diag: of a vector, the square matrix with it on diagonal k; of a matrix, its diagonal k.
methods.diag = function(...)
   local res, src, _, n = bind('diag', false, ...)
   local k = integerK('diag', n[1])
   if src:dim() == 1 then
      local n = src:size(1) + math.abs(k)
      -- Built apart from src when src is also the result.
      local out = (res == nil or res == src) and src.new() or res
      out:resize(n, n):zero()
      diagonal(out, k):copy(src)
      if res == src then return res:resizeAs(out):copy(out) end
      return out
   elseif src:dim() == 2 then
      local d = diagonal(src, k)
      local out = res or src.new()
      if d == nil then return out:resize(0) end
      d = d:clone()
      return out:resizeAs(d):copy(d)
   end
   error(string.format('diag: matrix or a vector expected, got %dD tensor', src:dim()), 2)
end
functions.diag = methods.diag

methods.trace = function(...)
   local _, x = bind('trace', false, ...)
   if x:dim() ~= 2 then error(string.format('trace: expected a matrix, got %dD tensor', x:dim()), 2) end
   local d = diagonal(x, 0)
   return d and d:sum() or 0
end
functions.trace = methods.trace

-- cross: x:cross(y [, dim]) a new tensor, res:cross(x, y [, dim]); dim by default the first of
-- size 3.
methods.cross = function(...)
   local res, x, t, n = bind('cross', false, ...)
   local y, dim = t[1], n[1]
   if x:dim() ~= y:dim() then error(string.format('cross: inconsistent tensor dimension %dD, %dD', x:dim(), y:dim()), 2) end
   if not x:isSameSizeAs(y) then error('cross: inconsistent tensor sizes', 2) end
   if dim == nil then
      for i = 1, x:dim() do
         if x:size(i) == 3 then dim = i break end
      end
      if dim == nil then error('cross: no dimension of size 3', 2) end
   elseif dim < 1 or dim > x:dim() then
      error(string.format('cross: dimension %d out of range', dim), 2)
   end
   if x:size(dim) ~= 3 then error(string.format('cross: dimension %d does not have size 3', dim), 2) end
   local out = x.new():resizeAs(x)
   local function part(t, i) return t:narrow(dim, i, 1) end
   for i = 1, 3 do
      local j, k = i % 3 + 1, (i + 1) % 3 + 1
      part(out, i):cmul(part(x, j), part(y, k)):add(-1, torch.cmul(part(x, k), part(y, j)))
   end
   if res then return res:resizeAs(out):copy(out) end
   return out
end
functions.cross = methods.cross

-- renorm: each slice along dim whose p-norm exceeds maxnorm scaled to norm maxnorm; x:renorm(p,
-- dim, maxnorm) in place, res:renorm(x, p, dim, maxnorm) and torch.renorm([res,] x, ...).
methods.renorm = function(...)
   local res, x, _, n = bind('renorm', false, ...)
   local p, dim, maxnorm = n[1], n[2], n[3]
   res = res or x
   if torch.typename(x) == 'torch.CudaLongTensor' then
      error('renorm: not supported for torch.CudaLongTensor (only torch.CudaTensor and torch.CudaDoubleTensor)', 2)
   end
   if p ~= p or p <= 0 then error(string.format('renorm: non-positive norm not supported (p = %s)', p), 2) end
   if x:dim() < 2 then error(string.format('renorm: need at least 2 dimensions, got %d dimensions', x:dim()), 2) end
   if dim < 1 or dim > x:dim() then error(string.format('renorm: dimension %d out of range of %dD tensor', dim, x:dim()), 2) end
   if res ~= x then res:resizeAs(x):copy(x) end
   local n = x:size(dim)
   local slices = res:transpose(1, dim):contiguous()
   local rows = slices:view(n, -1)
   local norms = rows:norm(p, 2)
   -- Scale maxnorm / (norm + 1e-7) where the norm exceeds maxnorm (Torch's guard), 1 elsewhere.
   local over = norms:gt(maxnorm)
   local keep = over:clone():mul(-1):add(1)
   local scale = norms:add(1e-7):cinv():mul(maxnorm):cmul(over):add(keep)
   rows:cmul(scale:expandAs(rows))
   res:transpose(1, dim):copy(slices)
   return res
end
functions.renorm = function(...)
   local res, x = bind('renorm', false, ...)
   if res == nil then return methods.renorm(x:clone(), ...) end
   return methods.renorm(...)
end

---------------------------------------------------------------------------------------------------
-- Making and filling: x:f(...) fills x (resized) and returns it; torch.f(res, ...) likewise.

local function fillWith(name, fill)
   methods[name] = function(res, ...)
      if not isCuda(res) then invalid(name, 'res:' .. name .. '(sizes...)', res, ...) end
      res:resize(...)
      return fill(res)
   end
   functions[name] = methods[name]
end
fillWith('zeros', function(t) return t:zero() end)
fillWith('ones', function(t) return t:fill(1) end)
fillWith('rand', function(t) return t:uniform(0, 1) end)
fillWith('randn', function(t) return t:normal(0, 1) end)

methods.eye = function(res, n, m, ...)
   m = m or n
   if not isCuda(res) or type(n) ~= 'number' or type(m) ~= 'number' or select('#', ...) > 0 then
      invalid('eye', 'torch.eye(res, n [, m])', res, n, m, ...)
   end
   if n <= 0 then error(string.format('eye: invalid argument: n must be positive (got %d)', n), 2) end
   if m <= 0 then error(string.format('eye: invalid argument: m must be positive (got %d)', m), 2) end
   res:resize(n, m):zero()
   diagonal(res, 0):fill(1)
   return res
end
functions.eye = methods.eye

methods.range = function(res, a, b, step, ...)
   step = step or 1
   if not isCuda(res) or type(a) ~= 'number' or type(b) ~= 'number' or type(step) ~= 'number' or select('#', ...) > 0 then
      invalid('range', 'torch.range(res, from, to [, step])', res, a, b, step, ...)
   end
   local long = torch.typename(res) == 'torch.CudaLongTensor'
   if long then
      -- The integer types take their bounds as C longs.
      local function trunc(v) return v < 0 and math.ceil(v) or math.floor(v) end
      a, b, step = trunc(a), trunc(b), trunc(step)
   end
   if step == 0 or step ~= step then error('range: step must be nonzero', 2) end
   if not ((step > 0 and b >= a) or (step < 0 and b <= a)) then
      error(string.format('range: upper bound and larger bound inconsistent with step sign (from %s to %s by %s)', a, b, step), 2)
   end
   local n = long and (math.floor((b - a) / step) + 1) or math.floor((b - a) / step + 1)
   res:resize(n)
   return pointwise('range', 'arange', res, nil, nil, nil, a, step)
end
functions.range = methods.range

for _, name in ipairs { 'linspace', 'logspace' } do
   methods[name] = function(res, a, b, n, ...)
      n = n or 100
      if not isCuda(res) or type(a) ~= 'number' or type(b) ~= 'number' or type(n) ~= 'number' or select('#', ...) > 0 then
         invalid(name, 'torch.' .. name .. '(res, from, to [, n])', res, a, b, n, ...)
      end
      if torch.typename(res) == 'torch.CudaLongTensor' then
         error(string.format('%s: torch.CudaLongTensor does not implement the torch.%s() function', name, name), 2)
      end
      -- The bounds compare in the element type, as on the host.
      local bounds = res.new(2):copy(torch.DoubleTensor { a, b })
      if not (n > 1 or (n == 1 and bounds[1] == bounds[2])) then
         error(string.format('%s: invalid number of points (%d; needs at least 2, or 1 when both bounds are equal)', name, n), 2)
      end
      res:resize(n)
      return pointwise(name, name, res, nil, nil, nil, a, b)
   end
   functions[name] = methods[name]
end

-- randperm: res:randperm(n), torch.randperm(res, n), from the generator of res's device.
methods.randperm = function(res, n, ...)
   if not isCuda(res) or type(n) ~= 'number' or select('#', ...) > 0 then
      invalid('randperm', 'torch.randperm(res, n)', res, n, ...)
   end
   return C.randperm(res, n)
end
functions.randperm = methods.randperm

-- multinomial: probs:multinomial(n [, replacement]) a new CudaLongTensor of 1-based categories,
-- res:multinomial(probs, n [, replacement]) and torch.multinomial([res,] probs, n [, replacement]).
methods.multinomial = function(a, b, ...)
   if isCuda(b) then return C.multinomial(a, b, ...) end
   return C.multinomial(nil, a, b, ...)
end
functions.multinomial = methods.multinomial

-- The distributions are native methods; torch.f(x, ...) fills x as x:f(...) does.
for _, name in ipairs { 'uniform', 'normal', 'bernoulli', 'cauchy', 'logNormal', 'exponential', 'geometric', 'random' } do
   functions[name] = function(x, ...) return x[name](x, ...) end
end

-- reshape: x:reshape(sizes...) a new tensor, res:reshape(src, sizes...), torch.reshape([res,]
-- src, sizes...); the elements in their logical order.
methods.reshape = function(x, a, ...)
   local res, src, sizes
   if isCuda(a) then res, src, sizes = x, a, { ... } else src, sizes = x, { a, ... } end
   local size = torch.typename(sizes[1]) == 'torch.LongStorage' and sizes[1] or torch.LongStorage(sizes)
   local n = size:size() == 0 and 0 or 1
   for i = 1, size:size() do n = n * size[i] end
   if n ~= src:nElement() then
      error(string.format('reshape: cannot reshape a tensor of %d elements into size %s (%d elements)', src:nElement(),
         table.concat(size:totable(), 'x'), n), 2)
   end
   local out = (res == nil or res == src) and src.new() or res
   out:resize(size):copy(src)
   if res == src then res:resize(size):copy(out) return res end
   return out
end
functions.reshape = methods.reshape

---------------------------------------------------------------------------------------------------
-- Logic: all and any of a tensor's elements (not zero); equal: same sizes and values.

methods.all = function(...)
   local _, x = bind('all', false, ...)
   return x:nElement() == 0 or C.reduceAll('all', 'zeros', x) == 0
end
methods.any = function(...)
   local _, x = bind('any', false, ...)
   return x:nElement() > 0 and C.reduceAll('any', 'zeros', x) < x:nElement()
end
functions.all, functions.any = methods.all, methods.any

methods.equal = function(...)
   local _, x, t = bind('equal', false, ...)
   local y = t[1]
   if not x:isSameSizeAs(y) then return false end
   return x:nElement() == 0 or C.reduceAll('equal', 'zeros', x:ne(y)) == x:nElement()
end
functions.equal = methods.equal

-- Moving by position (native methods, src/cuda/lua/gather.rs): torch.f takes the method's arguments.
for _, name in ipairs { 'index', 'indexCopy', 'indexAdd', 'indexFill', 'gather', 'scatter', 'scatterAdd',
   'maskedSelect', 'maskedCopy', 'nonzero' } do
   functions[name] = function(x, ...)
      if not isCuda(x) then invalid(name, 'torch.' .. name .. ' with a CUDA tensor first', x, ...) end
      return x[name](x, ...)
   end
end

-- Calling a Lua function on every element would copy each one to the host and back: refused,
-- with the way round.
for _, name in ipairs { 'apply', 'map', 'map2' } do
   methods[name] = function()
      error(name .. ': not supported for CUDA tensors (it calls a Lua function on each element); ' ..
         'convert with :float() or :double(), or use the tensor operations', 2)
   end
end

return { methods = methods, functions = functions }
