-- The maths of the device tensors in Torch's calling forms: `x:f(...)` works in place on x,
-- `res:f(src, ...)` writes into res, `torch.f(src, ...)` returns a new tensor and
-- `torch.f(res, src, ...)` writes into res. The forms are resolved here; the work is one call to
-- a native primitive of libcutorch with every operand explicit.
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

-- Whether args[from..n] match a signature: 'T' a device tensor, 'N' a number.
local function fits(sig, args, from, n)
   if n - from + 1 ~= #sig then return false end
   for i = 1, #sig do
      local v = args[from + i - 1]
      if sig[i] == 'T' then
         if not isCuda(v) then return false end
      elseif type(v) ~= 'number' then
         return false
      end
   end
   return true
end

-- The usage text of an operation's signatures.
local function usage(name, sigs, isMethod)
   local forms = {}
   for _, sig in ipairs(sigs) do
      local parts = {}
      for i, s in ipairs(sig) do parts[i] = s == 'T' and 'CudaTensor' or 'number' end
      local tail = table.concat(parts, ', ')
      local sep = tail == '' and '' or ', '
      if isMethod then
         forms[#forms + 1] = string.format('x:%s(%s) | res:%s(src%s%s)', name, tail, name, sep, tail)
      else
         forms[#forms + 1] = string.format('torch.%s([res,] src%s%s)', name, sep, tail)
      end
   end
   return table.concat(forms, ' | ')
end

-- Resolves a call by the forms above: (res, src, signature, first tail index, args); res is nil
-- for a function call that returns a new tensor.
local function resolve(name, sigs, isMethod, ...)
   local n = select('#', ...)
   local args = { ... }
   for _, sig in ipairs(sigs) do
      if isMethod then
         if fits(sig, args, 2, n) then return args[1], args[1], sig, 2, args end
      elseif isCuda(args[1]) and fits(sig, args, 2, n) then
         return nil, args[1], sig, 2, args
      end
   end
   for _, sig in ipairs(sigs) do
      if isCuda(args[1]) and isCuda(args[2]) and fits(sig, args, 3, n) then
         return args[1], args[2], sig, 3, args
      end
   end
   invalid(name, usage(name, sigs, isMethod), ...)
end

-- Defines `name` as a method and a function: run(name, res, src, tail values..., signature).
local function define(name, sigs, run)
   local function call(isMethod, ...)
      local res, src, sig, from, args = resolve(name, sigs, isMethod, ...)
      return run(name, res, src, sig, args[from], args[from + 1], args[from + 2])
   end
   methods[name] = function(...) return call(true, ...) end
   functions[name] = function(...) return call(false, ...) end
end

local pointwise = C.pointwise

---------------------------------------------------------------------------------------------------
-- Elementwise.

for _, name in ipairs { 'neg', 'abs', 'sign', 'exp', 'log', 'log1p', 'sqrt', 'rsqrt', 'cinv', 'tanh', 'sigmoid',
   'sinh', 'cosh', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'floor', 'ceil', 'round', 'trunc', 'frac' } do
   define(name, { {} }, function(_, res, src)
      return pointwise(name, name, res, src)
   end)
end

-- add and csub: [number] or [number,] tensor.
for name, sign in pairs { add = 1, csub = -1 } do
   define(name, { { 'N' }, { 'T' }, { 'N', 'T' } }, function(_, res, src, sig, a, b)
      if #sig == 1 and sig[1] == 'N' then return pointwise(name, 'add_n', res, src, nil, nil, sign * a) end
      if #sig == 1 then return pointwise(name, 'add', res, src, a, nil, sign) end
      return pointwise(name, 'add', res, src, b, nil, sign * a)
   end)
end

-- With a number.
for name, op in pairs { mul = 'mul_n', div = 'div_n' } do
   define(name, { { 'N' } }, function(_, res, src, _, v)
      return pointwise(name, op, res, src, nil, nil, v)
   end)
end

-- With a tensor.
for name, op in pairs { cmul = 'cmul', cdiv = 'cdiv', cpow = 'cpow', cfmod = 'cfmod', cmod = 'cfmod',
   cremainder = 'cremainder', atan2 = 'atan2' } do
   define(name, { { 'T' } }, function(_, res, src, _, t)
      return pointwise(name, op, res, src, t)
   end)
end

-- With a tensor or a number.
for name, ops in pairs { cmax = { 'cmax', 'max_n' }, cmin = { 'cmin', 'min_n' }, fmod = { 'cfmod', 'fmod_n' },
   mod = { 'cfmod', 'fmod_n' }, remainder = { 'cremainder', 'remainder_n' } } do
   define(name, { { 'T' }, { 'N' } }, function(_, res, src, sig, x)
      if sig[1] == 'T' then return pointwise(name, ops[1], res, src, x) end
      return pointwise(name, ops[2], res, src, nil, nil, x)
   end)
end

-- Comparisons with a tensor or a number: a:gt(b) and torch.gt(a, b) give a new tensor, res:gt(a, b)
-- and torch.gt(res, a, b) fill res; 1 where true, 0 elsewhere, in a's type (cutorch's CudaTensor
-- comparisons did so; there is no CudaByteTensor).
for _, name in ipairs { 'lt', 'le', 'gt', 'ge', 'eq', 'ne' } do
   local function run(isMethod, res, a, b, ...)
      if select('#', ...) == 0 and isCuda(a) and (res == nil or isCuda(res)) then
         if isCuda(b) then return pointwise(name, name, res, a, b) end
         if type(b) == 'number' then return pointwise(name, name .. '_n', res, a, nil, nil, b) end
      end
      local usage = isMethod and ('a:' .. name .. '(b) or res:' .. name .. '(a, b), b a tensor or a number')
         or ('torch.' .. name .. '([res,] a, b), b a tensor or a number')
      if isMethod then invalid(name, usage, res, a, b, ...) end
      invalid(name, usage, a, b, ...)
   end
   methods[name] = function(x, y, z, ...)
      if z == nil then return run(true, nil, x, y, ...) end
      return run(true, x, y, z, ...)
   end
   functions[name] = function(x, y, z, ...)
      if z == nil then return run(false, nil, x, y, ...) end
      return run(false, x, y, z, ...)
   end
end

-- x:maskedFill(mask, v): v where mask is not 0; the mask a device tensor of x's type with as many
-- elements (what the comparisons give).
define('maskedFill', { { 'T', 'N' } }, function(name, res, src, _, mask, v)
   return pointwise(name, 'masked_fill', res, src, mask, nil, v)
end)

define('clamp', { { 'N', 'N' } }, function(name, res, src, _, lo, hi)
   return pointwise(name, 'clamp', res, src, nil, nil, lo, hi)
end)

define('lerp', { { 'T', 'N' } }, function(name, res, src, _, t, weight)
   return pointwise(name, 'lerp', res, src, t, nil, weight)
end)

for _, name in ipairs { 'addcmul', 'addcdiv' } do
   define(name, { { 'T', 'T' }, { 'N', 'T', 'T' } }, function(_, res, src, sig, a, b, c)
      if #sig == 2 then return pointwise(name, name, res, src, a, b, 1) end
      return pointwise(name, name, res, src, b, c, a)
   end)
end

-- pow: src^number, or number^src (`res:pow(number, src)`, `torch.pow([res,] number, src)`).
do
   define('pow', { { 'N' } }, function(name, res, src, _, e)
      return pointwise(name, 'pow_n', res, src, nil, nil, e)
   end)
   local method, fn = methods.pow, functions.pow
   methods.pow = function(...)
      local res, a, b = ...
      if select('#', ...) == 3 and type(a) == 'number' and isCuda(b) then
         return pointwise('pow', 'tpow_n', res, b, nil, nil, a)
      end
      return method(...)
   end
   functions.pow = function(...)
      local n, a, b, c = select('#', ...), ...
      if n == 2 and type(a) == 'number' and isCuda(b) then return pointwise('pow', 'tpow_n', nil, b, nil, nil, a) end
      if n == 3 and isCuda(a) and type(b) == 'number' and isCuda(c) then
         return pointwise('pow', 'tpow_n', a, c, nil, nil, b)
      end
      return fn(...)
   end
end

---------------------------------------------------------------------------------------------------
-- Reductions.

-- sum, mean, prod: x:f() is a number; x:f(dim) a tensor; torch.f([res,] x [, dim]).
for _, name in ipairs { 'sum', 'mean', 'prod' } do
   methods[name] = function(x, dim)
      if dim == nil then return C.reduceAll(name, name, x) end
      return C.reduceDim(name, name, nil, x, dim)
   end
   functions[name] = function(a, b, c)
      if isCuda(b) then return C.reduceDim(name, name, a, b, c) end
      if b == nil then return C.reduceAll(name, name, a) end
      return C.reduceDim(name, name, nil, a, b)
   end
end

-- max, min: x:f() is a number; x:f(dim) gives values and (1-based) indices;
-- torch.f([values, indices,] x [, dim]).
for name, isMin in pairs { max = false, min = true } do
   methods[name] = function(x, dim)
      if dim == nil then return C.reduceAll(name, name, x) end
      return C.argReduceDim(name, isMin, nil, nil, x, dim)
   end
   functions[name] = function(a, b, c, d)
      if isCuda(c) then return C.argReduceDim(name, isMin, a, b, c, d) end
      if b == nil then return C.reduceAll(name, name, a) end
      return C.argReduceDim(name, isMin, nil, nil, a, b)
   end
end

-- The reduction that computes the p-norm.
local function normOp(p)
   if p == 0 then return 'norm0' end
   if p == 1 then return 'norm1' end
   if p == 2 then return 'norm2' end
   if p == math.huge then return 'norminf' end
   return 'normp'
end

-- norm: x:norm([p]) is a number, x:norm(p, dim) a tensor; torch.norm([res,] x [, p [, dim]]).
methods.norm = function(x, p, dim)
   p = p or 2
   if type(p) ~= 'number' then invalid('norm', 'x:norm([p [, dim]])', x, p, dim) end
   if dim == nil then return C.reduceAll('norm', normOp(p), x, p) end
   return C.reduceDim('norm', normOp(p), nil, x, dim, p)
end
functions.norm = function(a, b, c, d)
   if isCuda(b) then
      c = c or 2
      return C.reduceDim('norm', normOp(c), a, b, d, c)
   end
   return methods.norm(a, b, c)
end

-- var, std: x:f() a number, x:f(dim) a tensor, with `biased` (true: divide by n, not n - 1);
-- torch.f(x [, dim] [, biased]). dist: the p-norm of the difference, x:dist(y [, p]).
for name, root in pairs { var = false, std = true } do
   methods[name] = function(x, dim, biased)
      if torch.typename(x) == 'torch.CudaLongTensor' then
         error(name .. ': not supported for torch.CudaLongTensor (only torch.CudaTensor and torch.CudaDoubleTensor)', 2)
      end
      if dim == nil or type(dim) == 'boolean' then
         biased = dim
         local n = x:nElement()
         local d = x - x:mean()
         local v = d:cmul(d):sum() / (biased and n or (n - 1))
         return root and math.sqrt(v) or v
      end
      local n = x:size(dim)
      local d = x - x:mean(dim):expandAs(x)
      local v = d:cmul(d):sum(dim):div(biased and n or (n - 1))
      return root and v:sqrt() or v
   end
   functions[name] = function(...) return methods[name](...) end
end

methods.dist = function(x, y, p)
   return (x - y):norm(p or 2)
end
functions.dist = methods.dist

---------------------------------------------------------------------------------------------------
-- Matrix products (cuBLAS).

-- mm, mv, ger, bmm: res:f(x, y); torch.f([res,] x, y).
for name, prim in pairs { mm = C.gemm, mv = C.gemv, ger = C.ger, bmm = C.bgemm } do
   methods[name] = function(res, x, y)
      if not (isCuda(res) and isCuda(x) and isCuda(y)) then invalid(name, 'res:' .. name .. '(x, y)', res, x, y) end
      return prim(name, res, 0, nil, 1, x, y)
   end
   functions[name] = function(a, b, c)
      if c == nil then return prim(name, nil, 0, nil, 1, a, b) end
      return prim(name, a, 0, nil, 1, b, c)
   end
end

-- addmm, addmv, addr, baddbmm, addbmm: torch.f([res,] [beta,] M, [alpha,] x, y); res:f([M,]
-- [alpha,] x, y) and res:f(beta, [M,] alpha, x, y), M defaulting to res. Read from the end: y, x,
-- [alpha], M, [beta].
for name, prim in pairs { addmm = C.gemm, addmv = C.gemv, addr = C.ger, baddbmm = C.bgemm, addbmm = C.bgemmSum } do
   local function parse(isMethod, ...)
      local args = { ... }
      local n = select('#', ...)
      local function bad()
         invalid(name, isMethod and ('res:' .. name .. '([M,] [alpha,] x, y) or res:' .. name .. '(beta, [M,] alpha, x, y)')
            or ('torch.' .. name .. '([res,] [beta,] M, [alpha,] x, y)'), unpack(args, 1, n))
      end
      local i = n
      local function take(kind)
         local v = args[i]
         if i >= 1 and ((kind == 'T' and isCuda(v)) or (kind == 'N' and type(v) == 'number')) then
            i = i - 1
            return v
         end
      end
      local first = isMethod and 2 or 1
      local y, x = take('T'), take('T')
      if not (x and y) then bad() end
      local alpha = take('N')
      local M = i >= first and take('T') or nil
      local beta = i >= first and take('N') or nil
      local res
      if isMethod then
         res = args[1]
         if i ~= 1 or not isCuda(res) or (beta ~= nil and alpha == nil) then bad() end
         M = M or res
      else
         if M == nil then bad() end
         res = i >= 1 and take('T') or nil
         if i ~= 0 then bad() end
      end
      return prim(name, res, beta or 1, M, alpha or 1, x, y)
   end
   methods[name] = function(...) return parse(true, ...) end
   functions[name] = function(...) return parse(false, ...) end
end

functions.dot = function(x, y) return x:dot(y) end

---------------------------------------------------------------------------------------------------
-- cat: torch.cat([res,] x1, x2 [, dim]), torch.cat([res,] {x1, ...} [, dim]); x:cat(y [, dim]) is a
-- new tensor, res:cat(x1, x2 [, dim]) writes into res. The default dimension is the last; negative
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
   if isCuda(b) then return catInto(self, { a, b }, c) end
   return catInto(nil, { self, a }, b)
end

---------------------------------------------------------------------------------------------------
-- Scans, triangles and diagonals.

-- cumsum, cumprod: x:f([dim]) a new tensor, res:f(src [, dim]), torch.f([res,] src [, dim]);
-- dim 1 by default, as on the host.
for name, prod in pairs { cumsum = false, cumprod = true } do
   methods[name] = function(x, a, b)
      if isCuda(a) then return C.scanDim(name, prod, x, a, b or 1) end
      return C.scanDim(name, prod, nil, x, a or 1)
   end
   functions[name] = methods[name]
end

-- The forms x:f([k]) (a new result) and res:f(src [, k]): (res or nil, src, k).
local function withResult(name, usage, x, a, b, ...)
   local res, src, k = nil, x, a
   if isCuda(a) then res, src, k = x, a, b elseif b ~= nil then invalid(name, usage, x, a, b, ...) end
   if select('#', ...) > 0 or not isCuda(src) or (k ~= nil and type(k) ~= 'number') then
      invalid(name, usage, x, a, b, ...)
   end
   if k ~= nil and k ~= math.floor(k) then error(string.format('%s: k must be an integer, got %s', name, k), 3) end
   return res, src, k or 0
end

-- tril, triu: the elements on and below (above) diagonal k, zeros elsewhere.
for _, name in ipairs { 'tril', 'triu' } do
   local usage = string.format('torch.%s([res,] x [, k]) or x:%s([k])', name, name)
   methods[name] = function(...)
      local res, src, k = withResult(name, usage, ...)
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
   local res, src, k = withResult('diag', 'torch.diag([res,] x [, k]) or x:diag([k])', ...)
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

methods.trace = function(x, ...)
   if select('#', ...) > 0 or not isCuda(x) then invalid('trace', 'x:trace() or torch.trace(x)', x, ...) end
   if x:dim() ~= 2 then error(string.format('trace: expected a matrix, got %dD tensor', x:dim()), 2) end
   local d = diagonal(x, 0)
   return d and d:sum() or 0
end
functions.trace = methods.trace

-- cross: x:cross(y [, dim]) a new tensor, res:cross(x, y [, dim]); dim by default the first of
-- size 3.
methods.cross = function(a, b, c, d)
   local res, x, y, dim
   if isCuda(c) then res, x, y, dim = a, b, c, d else x, y, dim = a, b, c end
   if not (isCuda(x) and isCuda(y)) or (dim ~= nil and type(dim) ~= 'number') then
      invalid('cross', 'torch.cross([res,] a, b [, dim]) or a:cross(b [, dim])', a, b, c, d)
   end
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
methods.renorm = function(a, b, c, d, e)
   local res, x, p, dim, maxnorm
   if isCuda(b) then res, x, p, dim, maxnorm = a, b, c, d, e else res, x, p, dim, maxnorm = a, a, b, c, d end
   if not (isCuda(x) and type(p) == 'number' and type(dim) == 'number' and type(maxnorm) == 'number') then
      invalid('renorm', '([result,] tensor, p, dim, maxnorm)', a, b, c, d, e)
   end
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
functions.renorm = function(a, b, ...)
   if isCuda(b) then return methods.renorm(a, b, ...) end
   return methods.renorm(a:clone(), a, b, ...)
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

methods.all = function(x)
   return x:nElement() == 0 or C.reduceAll('all', 'zeros', x) == 0
end
methods.any = function(x)
   return x:nElement() > 0 and C.reduceAll('any', 'zeros', x) < x:nElement()
end
functions.all, functions.any = methods.all, methods.any

methods.equal = function(x, y, ...)
   if not (isCuda(x) and isCuda(y)) or torch.typename(x) ~= torch.typename(y) or select('#', ...) > 0 then
      invalid('equal', 'x:equal(y) or torch.equal(x, y), both of one CUDA type', x, y, ...)
   end
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

---------------------------------------------------------------------------------------------------
-- Sorting: sort, topk, kthvalue, median, mode, in the host tensors' forms (the receiver of a method
-- call is the first argument, as there):
--    sort([resval, resind,] x [, dim] [, descending])
--    topk([resval, resind,] x [, k] [, dim] [, dir] [, sort])   (dir true: the k largest)
--    kthvalue([resval, resind,] x, k [, dim])
--    median([resval, resind,] x [, dim]), mode([resval, resind,] x [, dim])
-- Values in x's type and 1-based indices in a CudaLongTensor; the default dimension is the last.
-- libcutorch's sortLanes resolves the forms.

for _, name in ipairs { 'sort', 'topk', 'kthvalue', 'median', 'mode' } do
   methods[name] = function(...) return C.sortLanes(name, ...) end
   functions[name] = methods[name]
end

return { methods = methods, functions = functions }
