-- The quadratic expansion [x1..xn, x1x1, x1x2, .., x1xn, x2x2, .., xnxn] of each row (the upper
-- triangle of the products, row-major), and optionally the time derivative of the expanded rows
-- (row t+1 − row t) in the same pass, for SFA2Node.
--
-- For float and double tensors with n <= 32 columns the work is done by a loop generated for n
-- (one statement per output value, compiled by LuaJIT into one trace); otherwise by a generic
-- loop or by tensor operations.
local M = {}

local function expanded_dim(n)
   return n + n * (n + 1) / 2
end
M.expanded_dim = expanded_dim

local ok_ffi, ffi = pcall(require, 'ffi')
local ctypes = ok_ffi and {
   ['torch.DoubleTensor'] = ffi.typeof('double*'),
   ['torch.FloatTensor'] = ffi.typeof('float*'),
} or {}

local MAX_UNROLLED = 32
local kernels = {}

-- The generated kernel for n columns: f(xp, op, dp, N) fills op (N × D) and, when dp is not nil,
-- dp ((N-1) × D) with the differences of consecutive expanded rows.
local function kernel(n)
   local k = kernels[n]
   if k then return k end
   local D = expanded_dim(n)
   local src = { 'local xp, op, dp, N = ...', 'for r = 0, N - 1 do' }
   local function add(line) src[#src + 1] = line end
   add(('  local a, o = xp + r * %d, op + r * %d'):format(n, D))
   local names = {}
   for i = 0, n - 1 do names[i] = 'x' .. i end
   add('  local ' .. table.concat(names, ', ', 0, n - 1) .. ' = ' ..
      (function()
         local t = {}
         for i = 0, n - 1 do t[#t + 1] = ('a[%d]'):format(i) end
         return table.concat(t, ', ')
      end)())
   local c = 0
   for i = 0, n - 1 do
      add(('  o[%d] = x%d'):format(c, i))
      c = c + 1
   end
   for i = 0, n - 1 do
      for j = i, n - 1 do
         add(('  o[%d] = x%d * x%d'):format(c, i, j))
         c = c + 1
      end
   end
   add('  if dp ~= nil and r > 0 then')
   add(('    local p, d = o - %d, dp + (r - 1) * %d'):format(D, D))
   for q = 0, D - 1 do add(('    d[%d] = o[%d] - p[%d]'):format(q, q, q)) end
   add('  end')
   add('end')
   k = assert(loadstring(table.concat(src, '\n'), '=mdp.expansion.kernel' .. n))
   kernels[n] = k
   return k
end

local function generic(xp, op, dp, N, n, D)
   for r = 0, N - 1 do
      local xr, orow = xp + r * n, op + r * D
      for i = 0, n - 1 do orow[i] = xr[i] end
      local c = n
      for i = 0, n - 1 do
         local xi = xr[i]
         for j = i, n - 1 do
            orow[c] = xi * xr[j]
            c = c + 1
         end
      end
      if dp ~= nil and r > 0 then
         local p, d = orow - D, dp + (r - 1) * D
         for q = 0, D - 1 do d[q] = orow[q] - p[q] end
      end
   end
end

local function with_tensor_ops(x, out, dout)
   local N, n = x:size(1), x:size(2)
   out:narrow(2, 1, n):copy(x)
   local col = n + 1
   for i = 1, n do
      local w = n - i + 1
      local dst = out:narrow(2, col, w)
      dst:copy(x:narrow(2, i, w))
      dst:cmul(x:narrow(2, i, 1):expand(N, w))
      col = col + w
   end
   if dout then
      dout:copy(out:narrow(1, 2, N - 1)):add(-1, out:narrow(1, 1, N - 1))
   end
end

-- Fills out (N × D) and dout ((N-1) × D, or nil) from x (N × n).
local function fill(x, out, dout)
   local N, n = x:size(1), x:size(2)
   local pt = ctypes[x:type()]
   if pt == nil then return with_tensor_ops(x, out, dout) end
   x = x:contiguous()
   local xp, op = ffi.cast(pt, x:data()), ffi.cast(pt, out:data())
   local dp = dout and ffi.cast(pt, dout:data()) or nil
   if n <= MAX_UNROLLED then
      kernel(n)(xp, op, dp, N)
   else
      generic(xp, op, dp, N, n, expanded_dim(n))
   end
end

-- The expansion of x, a new tensor.
function M.expand(x)
   local out = x.new(x:size(1), expanded_dim(x:size(2)))
   fill(x, out)
   return out
end

-- The expansion of x (and with derivative = true the time derivative of the expanded rows) in
-- buffers kept per tensor type and reused by the next call: for results used at once.
local scratch = {}
function M.expand_scratch(x, derivative)
   local T = x:type()
   local s = scratch[T]
   if s == nil then
      s = { x.new(), x.new() }
      scratch[T] = s
   end
   local N, D = x:size(1), expanded_dim(x:size(2))
   local out = s[1]:resize(N, D)
   local dout = nil
   if derivative and N > 1 then dout = s[2]:resize(N - 1, D) end
   fill(x, out, dout)
   return out, dout
end

return M
