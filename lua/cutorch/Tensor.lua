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

-- index: x:index(dim, positions) and torch.index(x, dim, positions) give a new tensor,
-- res:index(x, dim, positions) and torch.index(res, x, dim, positions) fill res; positions a
-- LongTensor or CudaLongTensor, 1-based.
methods.index = function(a, b, c, d)
   if d == nil then return C.indexSelect(nil, a, b, c) end
   return C.indexSelect(a, b, c, d)
end
functions.index = methods.index

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
