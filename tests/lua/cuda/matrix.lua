-- Scans, triangles, diagonals, cross products, renorm and the logical tests of device tensors,
-- each checked against the same call on host tensors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}
local same = H.same
local types = { 'FloatTensor', 'DoubleTensor', 'LongTensor' }

function cases.scans()
   for _, T in ipairs(types) do
      -- Lanes short and long (a block per lane from 256 elements), along every dimension, on a
      -- contiguous tensor and a transposed one.
      for _, shape in ipairs { { 3, 4, 5 }, { 2, 600 }, { 700, 3 } } do
         local x = torch[T](unpack(shape)):random(-3, 3)
         for _, v in ipairs { x, x:transpose(1, x:dim()) } do
            for dim = 1, v:dim() do
               local what = string.format('%s %s along %d', T, table.concat(v:size():totable(), 'x'), dim)
               same('cumsum ' .. what, function(a) return a:cumsum(dim) end, { v }, 1e-6)
               same('torch.cumsum into res ' .. what, function(a)
                  local res = a.new()
                  torch.cumsum(res, a, dim)
                  return res
               end, { v }, 1e-6)
            end
         end
         -- Products of elements near 1 (no overflow over hundreds of them).
         local y = T == 'LongTensor' and torch.LongTensor(unpack(shape)):random(1, 2):narrow(1, 1, math.min(shape[1], 3))
            or torch[T](unpack(shape)):uniform(0.9, 1.1)
         for dim = 1, y:dim() do
            same(string.format('%s cumprod along %d', T, dim), function(a) return a:cumprod(dim) end, { y }, 1e-5)
         end
      end
      same(T .. ' cumsum along the default dimension', function(a) return torch.cumsum(a) end,
         { torch[T](4, 3):random(-5, 5) })
   end
   H.raises('bad dim', function() torch.CudaTensor(2, 2):cumsum(3) end, 'cumsum', 'dimension')
end

function cases.triangles()
   for _, T in ipairs(types) do
      local x = torch[T](5, 7):random(-9, 9)
      for _, v in ipairs { x, x:t() } do
         for _, k in ipairs { -7, -2, -1, 0, 1, 3, 9 } do
            for _, name in ipairs { 'tril', 'triu' } do
               local what = string.format('%s %s(%d) of %s', T, name, k, table.concat(v:size():totable(), 'x'))
               same(what, function(a) return a[name](a, k) end, { v })
               same(what .. ' into res', function(a)
                  local res = a.new(2)
                  res[name](res, a, k)
                  return res
               end, { v })
            end
         end
      end
      same(T .. ' torch.tril', function(a) return torch.tril(a) end, { x })
   end
   H.raises('3D', function() torch.CudaTensor(2, 2, 2):tril() end, 'tril', 'matrix')
   H.raises('fractional k', function() torch.CudaTensor(2, 2):triu(0.5) end, 'triu', 'integer')
end

function cases.diagonals()
   for _, T in ipairs(types) do
      local v = torch[T](4):random(-9, 9)
      local m = torch[T](4, 6):random(-9, 9)
      for _, k in ipairs { -5, -2, 0, 1, 3, 6 } do
         same(string.format('%s diag(%d) of a vector', T, k), function(a) return a:diag(k) end, { v })
         same(string.format('%s diag(%d) of a matrix', T, k), function(a) return a:diag(k) end, { m })
         same(string.format('%s diag(%d) of a transposed matrix', T, k), function(a) return torch.diag(a, k) end,
            { m:t() })
      end
      same(T .. ' diag into res', function(a)
         local res = a.new(3, 3)
         torch.diag(res, a)
         return res
      end, { v })
      same(T .. ' trace', function(a) return a:trace() end, { m })
      same(T .. ' torch.trace of a transposed matrix', function(a) return torch.trace(a) end, { m:t() })
   end
   H.raises('3D diag', function() torch.CudaTensor(2, 2, 2):diag() end, 'diag', 'matrix or a vector')
   H.raises('vector trace', function() torch.CudaTensor(2):trace() end, 'trace', 'matrix')
end

function cases.cross()
   for _, T in ipairs(types) do
      local a, b = torch[T](4, 3, 2):random(-9, 9), torch[T](4, 3, 2):random(-9, 9)
      same(T .. ' cross along the first dimension of size 3', function(x, y) return x:cross(y) end, { a, b })
      same(T .. ' torch.cross along 2', function(x, y) return torch.cross(x, y, 2) end, { a, b })
      same(T .. ' cross into res', function(x, y)
         local res = x.new()
         res:cross(x, y)
         return res
      end, { a:transpose(1, 2), b:transpose(1, 2) })
   end
   local a = torch.CudaTensor(4, 2)
   H.raises('no size 3', function() a:cross(a) end, 'cross', 'size 3')
   H.raises('other sizes', function() a:cross(torch.CudaTensor(2, 4)) end, 'cross', 'inconsistent')
   H.raises('dim not 3', function() torch.CudaTensor(3, 2):cross(torch.CudaTensor(3, 2), 2) end, 'cross',
      'does not have size 3')
end

function cases.renorm()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local x = torch[T](4, 5, 3):uniform(-2, 2)
      for dim = 1, 3 do
         for _, p in ipairs { 1, 2, 3.5 } do
            local what = string.format('%s renorm(%g, %d, 2)', T, p, dim)
            same(what, function(a) return a:renorm(p, dim, 2) end, { x:clone() }, 1e-5)
            same('torch.' .. what, function(a) return torch.renorm(a, p, dim, 2) end, { x }, 1e-5)
         end
      end
   end
   H.raises('long', function() torch.CudaLongTensor(2, 2):renorm(2, 1, 1) end, 'renorm', 'CudaLongTensor')
   H.raises('vector', function() torch.CudaTensor(3):renorm(2, 1, 1) end, 'renorm', '2 dimensions')
   H.raises('p', function() torch.CudaTensor(3, 3):renorm(0, 1, 1) end, 'renorm', 'non-positive')
end

function cases.logic()
   for _, T in ipairs(types) do
      local x = torch[T](3, 4):random(1, 5)
      local d = H.cuda(x)
      H.eq(d:all(), true, T .. ' all of non-zeros')
      H.eq(d:any(), true, T .. ' any of non-zeros')
      d[2][3] = 0
      H.eq(d:all(), false, T .. ' all with a zero')
      H.eq(torch.any(d), true, T .. ' any with a zero')
      H.eq(d:zero():any(), false, T .. ' any of zeros')
      H.eq(d.new():all(), true, T .. ' all of nothing')
      local y = H.cuda(x)
      H.eq(y:equal(H.cuda(x)), true, T .. ' equal')
      H.eq(torch.equal(y, H.cuda(x):t():t()), true, T .. ' torch.equal')
      H.eq(y:equal(H.cuda(x):view(4, 3)), false, T .. ' equal of other sizes')
      local z = H.cuda(x)
      z[3][4] = z[3][4] + 1
      H.eq(y:equal(z), false, T .. ' equal of other values')
      H.eq(y:gt(0):all(), true, T .. ' all of a comparison')
   end
   H.raises('mixed types', function() torch.CudaTensor(2):equal(torch.CudaDoubleTensor(2)) end, 'equal',
      'invalid arguments: CudaTensor CudaDoubleTensor\nexpected arguments: CudaTensor CudaTensor')
   H.raises('triu with a string', function() torch.CudaTensor(2, 2):triu('x') end, 'triu',
      'invalid arguments: CudaTensor string\nexpected arguments: [*CudaTensor*] CudaTensor [number]')
   H.raises('var with a string', function() torch.CudaTensor(2, 2):var('x') end, 'var', 'invalid arguments')
   local r = torch.CudaTensor()
   torch.var(r, torch.CudaTensor({ { 1, 3 }, { 5, 7 } }), 2, true)
   H.eq(r:sum(), 2, 'torch.var(res, x, dim, biased)')
end

return cases
