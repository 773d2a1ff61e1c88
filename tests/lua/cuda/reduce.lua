-- Reductions of device tensors against the host's (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

-- Inputs of several shapes: small, long along each dimension (block and thread kernels), views.
local function inputs(T)
   local x = torch[T](6, 9):uniform(-3, 3)
   local tall = torch[T](3000, 5):uniform(-1, 1)
   local wide = torch[T](4, 5000):uniform(-1, 1)
   return {
      small = x,
      transposed = torch[T](9, 6):uniform(-3, 3):t(),
      tall = tall,
      wide = wide,
      cube = torch[T](7, 8, 9):uniform(-1, 1),
      narrowed = wide:narrow(2, 100, 3000),
      vector = torch[T](100000):uniform(-1, 1),
   }
end

local function dev(t) return H.cuda(t) end

function cases.wholeTensor()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local tol = T == 'FloatTensor' and 1e-4 or 1e-10
      for name, x in pairs(inputs(T)) do
         local d = dev(x)
         local what = T .. ' ' .. name
         H.close(d:sum(), x:sum(), tol, what .. ' sum')
         H.close(torch.sum(d), x:sum(), tol, what .. ' torch.sum')
         H.close(d:mean(), x:mean(), tol, what .. ' mean')
         H.close(d:max(), x:max(), 0, what .. ' max')
         H.close(d:min(), x:min(), 0, what .. ' min')
         H.close(torch.max(d), x:max(), 0, what .. ' torch.max')
         for _, p in ipairs { 0, 1, 2, 3, 0.5 } do
            H.close(d:norm(p), x:norm(p), tol * 10, what .. ' norm ' .. p)
         end
         H.close(d:norm(), x:norm(), tol, what .. ' norm')
         H.close(d:norm(math.huge), x:abs():max(), tol, what .. ' norm inf')
      end
      local small = torch[T](5):uniform(0.5, 1.5)
      H.close(dev(small):prod(), small:prod(), tol, T .. ' prod')
   end
end

-- Long contiguous vectors: the whole-tensor kernel's unrolled loop over full steps of a wave
-- of blocks and its tail, on the mock (a few blocks) and on a GPU (hundreds) alike; the largest
-- element placed in the tail, where a loop that stopped short would miss it.
function cases.longVectors()
   for _, n in ipairs { 3000001, 2 ^ 21 + 13 } do
      for _, T in ipairs { 'FloatTensor', 'DoubleTensor', 'LongTensor' } do
         local x = T == 'LongTensor' and torch.LongTensor(n):random(-1000, 1000) or torch[T](n):uniform(-1, 1)
         x[n] = 5000
         local d = dev(x)
         local what = string.format('%s of %d', T, n)
         local tol = T == 'FloatTensor' and 1e-3 or 1e-8
         H.close(d:sum(), x:sum(), tol, what .. ' sum')
         H.close(d:max(), 5000, 0, what .. ' max')
         H.close(d:min(), x:min(), 0, what .. ' min')
         if T ~= 'LongTensor' then
            H.close(d:mean(), x:mean(), tol, what .. ' mean')
            H.close(d:norm(), x:norm(), tol, what .. ' norm')
            H.close(d:norm(1), x:norm(1), tol, what .. ' norm 1')
         end
      end
   end
end

function cases.alongDimensions()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local tol = T == 'FloatTensor' and 1e-4 or 1e-10
      for name, x in pairs(inputs(T)) do
         local d = dev(x)
         for dim = 1, x:dim() do
            local what = string.format('%s %s dim %d', T, name, dim)
            H.close(d:sum(dim), x:sum(dim), tol, what .. ' sum')
            H.close(torch.mean(d, dim), x:mean(dim), tol, what .. ' mean')
            H.close(d:norm(2, dim), x:norm(2, dim), tol, what .. ' norm')
            H.close(d:norm(1, dim), x:norm(1, dim), tol, what .. ' norm 1')
            H.close(torch.norm(d, 3, dim), torch.norm(x, 3, dim), tol * 10, what .. ' norm 3')
            local v, i = d:max(dim)
            local hv, hi = x:max(dim)
            H.close(v, hv, 0, what .. ' max values')
            H.close(i, hi, 0, what .. ' max indices')
            v, i = torch.min(d, dim)
            hv, hi = torch.min(x, dim)
            H.close(v, hv, 0, what .. ' min values')
            H.close(i, hi, 0, what .. ' min indices')
         end
      end
   end
end

function cases.resultForms()
   local x = torch.FloatTensor(5, 6):uniform()
   local d = x:cuda()
   local r = torch.CudaTensor()
   torch.sum(r, d, 2)
   H.close(r, x:sum(2), 1e-5, 'torch.sum(res, x, dim)')
   local v, i = torch.CudaTensor(), torch.CudaLongTensor()
   torch.max(v, i, d, 1)
   H.close(v, (x:max(1)), 0, 'torch.max(values, indices, x, dim) values')
   H.close(i, select(2, x:max(1)), 0, 'torch.max(values, indices, x, dim) indices')
   H.eq(torch.type(i), 'torch.CudaLongTensor', 'indices are CudaLongTensor')
   local n = torch.CudaTensor()
   torch.norm(n, d, 2, 1)
   H.close(n, x:norm(2, 1), 1e-5, 'torch.norm(res, x, p, dim)')
end

function cases.ties()
   -- The first of equal extremes, as on the host.
   local x = torch.FloatTensor({ { 1, 3, 3, 2 }, { 5, 5, 1, 1 } })
   local _, i = x:cuda():max(2)
   H.close(i, select(2, x:max(2)), 0, 'max ties')
   local _, j = x:cuda():min(2)
   H.close(j, select(2, x:min(2)), 0, 'min ties')
   local long = torch.FloatTensor(2, 3000):fill(1)
   long[1][2000] = 2
   long[2][10] = 0
   local v, k = long:cuda():max(2)
   H.eq(k[1][1], 2000, 'max index in a long row')
   H.eq(v[2][1], 1, 'max value')
   local _, m = long:cuda():min(2)
   H.eq(m[2][1], 10, 'min index in a long row')
   H.eq(m[1][1], 1, 'first of equal minima')
end

function cases.long()
   local x = torch.LongTensor(40, 30):random(-100, 100)
   local d = x:cudaLong()
   H.close(d:sum(), x:sum(), 0, 'long sum')
   H.close(d:max(), x:max(), 0, 'long max')
   H.close(d:min(), x:min(), 0, 'long min')
   for dim = 1, 2 do
      H.close(d:sum(dim), x:sum(dim), 0, 'long sum dim ' .. dim)
      local v, i = d:max(dim)
      local hv, hi = x:max(dim)
      H.close(v, hv, 0, 'long max values')
      H.close(i, hi, 0, 'long max indices')
   end
   H.raises('norm of long', function() d:norm() end, 'norm', 'not supported for torch.CudaLongTensor')
end

function cases.varStdDist()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local tol = T == 'FloatTensor' and 1e-4 or 1e-10
      local x, y = torch[T](30, 40):uniform(-1, 1), torch[T](30, 40):uniform(-1, 1)
      local d, e = dev(x), dev(y)
      H.close(d:var(), x:var(), tol, T .. ' var')
      H.close(d:std(true), x:std(true), tol, T .. ' std biased')
      H.close(torch.var(d, 1), torch.var(x, 1), tol, T .. ' var along 1')
      H.close(d:std(2, true), x:std(2, true), tol, T .. ' std along 2 biased')
      H.close(d:dist(e), x:dist(y), tol, T .. ' dist')
      H.close(torch.dist(d, e, 3), torch.dist(x, y, 3), tol, T .. ' dist 3')
   end
end

function cases.errors()
   local d = torch.CudaTensor(3, 4)
   H.raises('bad dim', function() d:sum(3) end, 'sum', 'out of range')
   H.raises('empty max', function() torch.CudaTensor():max() end, 'max', 'empty')
   H.eq(torch.CudaTensor():sum(), 0, 'sum of nothing')
end

return cases
