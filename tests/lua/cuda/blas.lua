-- Matrix products through cuBLAS against the host's (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

-- A matrix of r x c in several layouts: contiguous, transposed, narrowed, non-unit strides.
local function layouts(T, r, c)
   return {
      contiguous = torch[T](r, c):uniform(-1, 1),
      transposed = torch[T](c, r):uniform(-1, 1):t(),
      narrowed = torch[T](r + 3, c + 5):uniform(-1, 1):narrow(1, 2, r):narrow(2, 3, c),
      strided = torch[T](r, 2 * c):uniform(-1, 1):unfold(2, 1, 2):select(3, 1),
   }
end

local function tolerance(T, k)
   return (T == 'FloatTensor' and 1e-5 or 1e-12) * k
end

function cases.mm()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local tol = tolerance(T, 50)
      for an, a in pairs(layouts(T, 17, 33)) do
         for bn, b in pairs(layouts(T, 33, 9)) do
            local what = string.format('%s mm %s x %s', T, an, bn)
            H.close(torch.mm(H.cuda(a), H.cuda(b)), torch.mm(a, b), tol, what)
         end
      end
      local a, b = torch[T](17, 33):uniform(), torch[T](33, 9):uniform()
      -- Results of every layout, written in place.
      local function new(...) return H.cuda(torch[T](...)) end
      local targets = {
         contiguous = function() return new(17, 9) end,
         transposed = function() return new(9, 17):t() end,
         narrowed = function() return new(20, 14):narrow(1, 2, 17):narrow(2, 3, 9) end,
         strided = function() return new(17, 18):unfold(2, 1, 2):select(3, 1) end,
      }
      for name, make in pairs(targets) do
         local target = make()
         target:mm(H.cuda(a), H.cuda(b))
         H.close(target, torch.mm(a, b), tol, T .. ' mm into a ' .. name .. ' result')
      end
      H.close(H.cuda(a) * H.cuda(b), a * b, tol, T .. ' operator *')
      -- addmm in its forms.
      local m = torch[T](17, 9):uniform()
      H.close(torch.addmm(H.cuda(m), H.cuda(a), H.cuda(b)), torch.addmm(m, a, b), tol, 'addmm')
      H.close(torch.addmm(0.5, H.cuda(m), 2, H.cuda(a), H.cuda(b)), torch.addmm(0.5, m, 2, a, b), tol, 'addmm scaled')
      local r = H.cuda(m)
      r:addmm(H.cuda(a), H.cuda(b))
      H.close(r, m:clone():addmm(a, b), tol, 'res:addmm(x, y)')
      r = H.cuda(m)
      r:addmm(0, 3, H.cuda(a), H.cuda(b))
      H.close(r, torch.mm(a, b):mul(3), tol, 'addmm with beta 0')
      local out = H.cuda(torch[T]())
      torch.addmm(out, 2, H.cuda(m), H.cuda(a), H.cuda(b))
      H.close(out, torch.addmm(2, m, a, b), tol, 'torch.addmm(res, beta, M, x, y)')
   end
end

function cases.batched()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local tol = tolerance(T, 50)
      -- Batches in several layouts: contiguous, each matrix transposed, narrowed.
      local function batch(n, r, c)
         return {
            contiguous = torch[T](n, r, c):uniform(-1, 1),
            transposed = torch[T](n, c, r):uniform(-1, 1):transpose(2, 3),
            narrowed = torch[T](n + 1, r + 2, c + 3):uniform(-1, 1):narrow(1, 2, n):narrow(2, 2, r):narrow(3, 1, c),
         }
      end
      for an, a in pairs(batch(4, 7, 5)) do
         for bn, b in pairs(batch(4, 5, 6)) do
            local what = string.format('%s bmm %s x %s', T, an, bn)
            H.close(torch.bmm(H.cuda(a), H.cuda(b)), torch.bmm(a, b), tol, what)
         end
      end
      local a, b = torch[T](4, 7, 5):uniform(), torch[T](4, 5, 6):uniform()
      local m3, m2 = torch[T](4, 7, 6):uniform(), torch[T](7, 6):uniform()
      local r = H.cuda(torch[T]())
      r:bmm(H.cuda(a), H.cuda(b))
      H.close(r, torch.bmm(a, b), tol, T .. ' res:bmm')
      H.close(torch.baddbmm(H.cuda(m3), H.cuda(a), H.cuda(b)), torch.baddbmm(m3, a, b), tol, T .. ' baddbmm')
      H.close(torch.baddbmm(0.5, H.cuda(m3), 2, H.cuda(a), H.cuda(b)), torch.baddbmm(0.5, m3, 2, a, b), tol,
         T .. ' baddbmm scaled')
      H.close(torch.addbmm(H.cuda(m2), H.cuda(a), H.cuda(b)), torch.addbmm(m2, a, b), tol, T .. ' addbmm')
      r = H.cuda(m2)
      r:addbmm(0.5, 3, H.cuda(a), H.cuda(b))
      H.close(r, m2:clone():addbmm(0.5, 3, a, b), tol, T .. ' res:addbmm(beta, alpha, x, y)')
      H.raises('batch counts', function() torch.bmm(H.cuda(a), H.cuda(torch[T](3, 5, 6))) end, 'bmm', 'batch')
      H.raises('2-D operand', function() torch.bmm(H.cuda(a), H.cuda(torch[T](5, 6))) end, 'bmm')
   end
   H.raises('long', function() torch.bmm(torch.CudaLongTensor(2, 2, 2), torch.CudaLongTensor(2, 2, 2)) end, 'bmm')
end

function cases.mvDotAddr()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local tol = tolerance(T, 50)
      for an, a in pairs(layouts(T, 20, 30)) do
         local x = torch[T](60):uniform():unfold(1, 1, 2):select(2, 1) -- stride 2
         local what = T .. ' mv ' .. an
         H.close(torch.mv(H.cuda(a), H.cuda(x)), torch.mv(a, x), tol, what)
         local v = torch[T](20):uniform()
         H.close(torch.addmv(0.5, H.cuda(v), 2, H.cuda(a), H.cuda(x)), torch.addmv(0.5, v, 2, a, x), tol, what .. ' addmv')
      end
      local x, y = torch[T](1000):uniform(), torch[T](1000):uniform()
      H.close(H.cuda(x):dot(H.cuda(y)), x:dot(y), tol * 10, T .. ' dot')
      H.close(torch.dot(H.cuda(x), H.cuda(y)), x:dot(y), tol * 10, T .. ' torch.dot')
      local xs = torch[T](20, 50):uniform():select(2, 3)
      H.close(H.cuda(xs):dot(H.cuda(xs)), xs:dot(xs), tol, T .. ' dot of strided vectors')
      H.close(H.cuda(x) * H.cuda(y), x * y, tol * 10, T .. ' vector * vector')
      local u, w = torch[T](7):uniform(), torch[T](5):uniform()
      local m = torch[T](7, 5):uniform()
      H.close(torch.ger(H.cuda(u), H.cuda(w)), torch.ger(u, w), tol, T .. ' ger')
      H.close(torch.addr(H.cuda(m), H.cuda(u), H.cuda(w)), torch.addr(m, u, w), tol, T .. ' addr')
      H.close(torch.addr(2, H.cuda(m), 3, H.cuda(u), H.cuda(w)), torch.addr(2, m, 3, u, w), tol, T .. ' addr scaled')
      H.close(H.cuda(m) * H.cuda(w), m * w, tol, T .. ' matrix * vector')
   end
end

function cases.errors()
   local a = torch.CudaTensor(3, 4)
   H.raises('size mismatch', function() torch.mm(a, torch.CudaTensor(5, 2)) end, 'mm', 'size mismatch')
   H.raises('dims', function() torch.mm(a, torch.CudaTensor(4)) end, 'mm', '2D')
   H.raises('types', function() torch.mm(a, torch.CudaDoubleTensor(4, 2)) end, 'mm', 'different types')
   local l = torch.CudaLongTensor(3, 4)
   H.raises('long mm', function() torch.mm(l, torch.CudaLongTensor(4, 2)) end, 'mm', 'torch.CudaLongTensor')
   H.raises('long dot', function() l:dot(l) end, 'dot', 'torch.CudaLongTensor')
   H.raises('host operand', function() torch.mm(a, torch.FloatTensor(4, 2)) end, 'mm')
end

return cases
