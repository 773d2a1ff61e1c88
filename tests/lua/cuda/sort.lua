-- sort, topk, kthvalue, median and mode of device tensors, each checked against the same call on
-- host tensors holding the same data: values bit for bit (-0 and +0 told apart, NaN where NaN)
-- and indices exactly (run by run_all.lua on a GPU machine or the mock driver).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

local TYPES = { 'FloatTensor', 'DoubleTensor', 'LongTensor' }

-- Whether two numbers are the same: NaN and NaN, or equal with the same sign (-0 is not +0).
local function identical(a, b)
   if a ~= a or b ~= b then return a ~= a and b ~= b end
   return a == b and (a ~= 0 or 1 / a == 1 / b)
end

-- A device result against the host's: the matching type and size, every element identical.
local function exact(dev, host, what)
   H.check(H.isCuda(dev), '%s: expected a CUDA tensor, got %s', what, torch.type(dev))
   H.close(dev, host, 0, what)
   if host:nElement() == 0 then return end
   local d = H.host(dev):double():contiguous():view(-1)
   local h = host:double():contiguous():view(-1)
   for i = 1, h:size(1) do
      if not identical(d[i], h[i]) then
         error(string.format('%s: element %d is %.17g on the device, %.17g on the host', what, i, d[i], h[i]), 2)
      end
   end
end

-- Applies f to host tensors and to device copies of them (other arguments as they are); the
-- results (values and indices) and the inputs afterwards must be identical.
local function same(what, f, ...)
   H.same(what, f, { ... }, 0, function(dev, host, _, where) exact(dev, host, where) end)
end

-- Random values of type T: integer-valued within [-r, r] (many ties) when r is given, else
-- uniform in [-3, 3) (integers in [-1000, 1000] for LongTensor).
local function rand(T, r, ...)
   local x = torch.DoubleTensor(...)
   if r then
      x:uniform(-r, r + 1):floor()
   elseif T == 'LongTensor' then
      x:uniform(-1000, 1001):floor()
   else
      x:uniform(-3, 3)
   end
   return x:type('torch.' .. T)
end

-- Inputs of several shapes and layouts, with ties or without.
local function inputs(T)
   local wide = rand(T, nil, 5, 40)
   local cube = rand(T, 3, 4, 5, 6)
   return {
      vector = rand(T, nil, 37),
      ties = rand(T, 2, 50),
      matrix = rand(T, nil, 6, 9),
      matrixTies = rand(T, 1, 7, 8),
      transposed = rand(T, nil, 9, 6):t(),
      narrowed = wide:narrow(2, 4, 30),
      cube = cube,
      cubeView = cube:transpose(1, 3):narrow(2, 2, 3),
      single = rand(T, nil, 1),
      column = rand(T, 2, 5, 1),
   }
end

-- Float and double data with NaNs, -0 and +0 among ties.
local function special(T)
   local nan, inf = 0 / 0, math.huge
   return torch[T]({ 3, nan, -0.0, 0.0, 1, -inf, nan, 0.0, -0.0, inf, 1, -2, nan, 3, -0.0, 2, 0.0, 1, -inf })
end

function cases.sortEveryDimension()
   for _, T in ipairs(TYPES) do
      for name, x in pairs(inputs(T)) do
         for dim = 1, x:dim() do
            local what = string.format('%s %s dim %d', T, name, dim)
            same(what .. ' sort', function(t) return t:sort(dim) end, x)
            same(what .. ' sort descending', function(t) return torch.sort(t, dim, true) end, x)
            same(what .. ' sort ascending (false)', function(t) return t:sort(dim, false) end, x)
         end
         same(T .. ' ' .. name .. ' sort (last dim)', function(t) return t:sort() end, x)
         same(T .. ' ' .. name .. ' sort (last dim, descending)', function(t) return torch.sort(t, true) end, x)
      end
   end
end

function cases.sortLengths()
   for _, T in ipairs(TYPES) do
      for _, n in ipairs { 1, 2, 3, 5, 17, 511, 512, 513, 1000, 1024, 4097 } do
         local what = string.format('%s length %d', T, n)
         local x = rand(T, nil, n)
         same(what .. ' sort', function(t) return t:sort() end, x)
         same(what .. ' sort descending', function(t) return t:sort(1, true) end, x)
         local ties = rand(T, 3, n)
         same(what .. ' ties sort', function(t) return t:sort() end, ties)
         same(what .. ' ties sort descending', function(t) return t:sort(true) end, ties)
         same(what .. ' ties median', function(t) return t:median() end, ties)
         same(what .. ' ties mode', function(t) return t:mode() end, ties)
         -- Several lanes, along either dimension (rows of the work buffers side by side).
         local rows = rand(T, 4, 3, n)
         same(what .. ' 3 lanes sort', function(t) return t:sort(2) end, rows)
         same(what .. ' 3 lanes along dim 1', function(t) return t:t():sort(1, true) end, rows)
         same(what .. ' 3 lanes topk', function(t) return t:topk(math.min(n, 3), 2, true) end, rows)
      end
   end
end

function cases.sortManyShortLanes()
   -- Many rows in one chunk of the shared-memory kernel, and lanes of every short length.
   for _, T in ipairs(TYPES) do
      for _, n in ipairs { 1, 2, 3, 4, 6, 7, 9, 33 } do
         local x = rand(T, 2, 300, n)
         same(string.format('%s 300x%d sort', T, n), function(t) return t:sort(2) end, x)
         same(string.format('%s 300x%d sort dim 1', T, n), function(t) return t:sort(1, true) end, x)
         same(string.format('%s 300x%d mode', T, n), function(t) return t:mode(2) end, x)
      end
   end
end

function cases.sortSpecialValues()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local x = special(T)
      local n = x:size(1)
      same(T .. ' NaN and -0 sort', function(t) return t:sort() end, x)
      same(T .. ' NaN and -0 sort descending', function(t) return t:sort(true) end, x)
      for k = 1, n do
         same(T .. ' NaN and -0 topk smallest ' .. k, function(t) return t:topk(k) end, x)
         same(T .. ' NaN and -0 topk largest ' .. k, function(t) return t:topk(k, 1, true) end, x)
         same(T .. ' NaN and -0 kthvalue ' .. k, function(t) return t:kthvalue(k) end, x)
      end
      same(T .. ' NaN and -0 median', function(t) return t:median() end, x)
      same(T .. ' NaN and -0 mode', function(t) return t:mode() end, x)
      -- Zeros only: the mode and median are the first or last zero of either sign, as on the host.
      local zeros = torch[T]({ -0.0, 0.0, 0.0, -0.0, -0.0 })
      same(T .. ' zeros sort', function(t) return t:sort() end, zeros)
      same(T .. ' zeros median', function(t) return t:median() end, zeros)
      same(T .. ' zeros mode', function(t) return t:mode() end, zeros)
      -- Lanes of special values along each dimension of a matrix.
      local m = torch[T](5, n)
      for i = 1, 5 do m[i]:copy(x:index(1, torch.randperm(n):long())) end
      for dim = 1, 2 do
         same(T .. ' special matrix sort dim ' .. dim, function(t) return t:sort(dim) end, m)
         same(T .. ' special matrix sort descending dim ' .. dim, function(t) return t:sort(dim, true) end, m)
         same(T .. ' special matrix median dim ' .. dim, function(t) return t:median(dim) end, m)
         same(T .. ' special matrix mode dim ' .. dim, function(t) return t:mode(dim) end, m)
      end
      -- Subnormals and the extremes sort by value.
      local tiny = T == 'FloatTensor' and 1e-45 or 4.9e-324
      local big = T == 'FloatTensor' and 3.4e38 or 1.7e308
      same(T .. ' extremes sort', function(t) return t:sort() end,
         torch[T]({ tiny, -tiny, big, -big, 0, -0.0, tiny, 1, -1 }))
   end
   -- Long extremes: the smallest long, and large magnitudes of both signs.
   local l = torch.LongTensor({ 5, -2 ^ 63, 2 ^ 62, -2 ^ 62, 0, -1, 2 ^ 62, -2 ^ 63, 1 })
   same('long extremes sort', function(t) return t:sort() end, l)
   same('long extremes sort descending', function(t) return t:sort(true) end, l)
   same('long extremes mode', function(t) return t:mode() end, l)
   same('long extremes median', function(t) return t:median() end, l)
end

function cases.topk()
   for _, T in ipairs(TYPES) do
      for name, x in pairs(inputs(T)) do
         for dim = 1, x:dim() do
            local n = x:size(dim)
            for _, k in ipairs { 1, 2, math.ceil(n / 2), n } do
               if k <= n then
                  local what = string.format('%s %s dim %d k %d', T, name, dim, k)
                  same(what .. ' topk smallest', function(t) return t:topk(k, dim) end, x)
                  same(what .. ' topk largest', function(t) return torch.topk(t, k, dim, true) end, x)
                  same(what .. ' topk smallest (dir false, sort true)',
                     function(t) return t:topk(k, dim, false, true) end, x)
               end
            end
         end
         same(T .. ' ' .. name .. ' topk ()', function(t) return t:topk() end, x)
         same(T .. ' ' .. name .. ' topk (k)', function(t) return torch.topk(t, 1) end, x)
      end
      local long = rand(T, 5, 2, 4097)
      same(T .. ' long lanes topk 100 largest', function(t) return t:topk(100, 2, true) end, long)
      same(T .. ' long lanes topk 7 smallest', function(t) return t:topk(7) end, long)
   end
end

function cases.kthvalue()
   for _, T in ipairs(TYPES) do
      for name, x in pairs(inputs(T)) do
         for dim = 1, x:dim() do
            local n = x:size(dim)
            for _, k in ipairs { 1, 2, math.ceil(n / 2), n } do
               if k <= n then
                  local what = string.format('%s %s dim %d k %d', T, name, dim, k)
                  same(what .. ' kthvalue', function(t) return t:kthvalue(k, dim) end, x)
                  same(what .. ' torch.kthvalue', function(t) return torch.kthvalue(t, k, dim) end, x)
               end
            end
         end
         same(T .. ' ' .. name .. ' kthvalue (last dim)', function(t) return t:kthvalue(1) end, x)
      end
      local ties = rand(T, 1, 9)
      for k = 1, 9 do
         same(T .. ' ties kthvalue ' .. k, function(t) return t:kthvalue(k) end, ties)
      end
   end
end

-- `name` (median or mode) of every input along every dimension and along the default one.
local function everyDim(T, name)
   for inputName, x in pairs(inputs(T)) do
      for dim = 1, x:dim() do
         local what = string.format('%s %s dim %d', T, inputName, dim)
         same(what .. ' ' .. name, function(t) return t[name](t, dim) end, x)
         same(what .. ' torch.' .. name, function(t) return torch[name](t, dim) end, x)
      end
      same(T .. ' ' .. inputName .. ' ' .. name .. ' (last dim)', function(t) return t[name](t) end, x)
   end
end

function cases.median()
   for _, T in ipairs(TYPES) do
      everyDim(T, 'median')
      -- Even and odd lengths: the lower median.
      for n = 1, 12 do
         same(string.format('%s median of %d', T, n), function(t) return t:median() end, rand(T, nil, n))
         same(string.format('%s median of %d with ties', T, n), function(t) return t:median() end, rand(T, 1, n))
      end
   end
end

function cases.mode()
   for _, T in ipairs(TYPES) do
      everyDim(T, 'mode')
      -- Ties between runs: the smallest value wins, at its last position.
      for _, values in ipairs {
         { 1, 2, 2, 3, 3, 1 }, { 3, 3, 1, 1, 2, 2 }, { 5 }, { 4, 4 }, { 2, 1 }, { 7, 7, 7, 1, 1, 1, 7, 1 },
         { -1, 2, -1, 2, 0 }, { 9, 8, 7, 6 },
      } do
         local x = torch[T](values)
         local got, at = H.cuda(x):mode()
         local want, wantAt = x:mode()
         exact(got, want, T .. ' mode of ' .. table.concat(values, ','))
         exact(at, wantAt, T .. ' mode position of ' .. table.concat(values, ','))
      end
      local x = torch[T]({ { 1, 2, 2, 3, 3, 1 }, { 3, 3, 1, 1, 2, 2 } })
      local v, i = H.cuda(x):mode()
      H.eq(v[1][1], 1, T .. ' mode: smallest of the most frequent')
      H.eq(i[1][1], 6, T .. ' mode: its last position')
      H.eq(i[2][1], 4, T .. ' mode of row 2: last position of 1')
   end
end

function cases.resultForms()
   for _, T in ipairs(TYPES) do
      local x = rand(T, 3, 6, 7)
      local d = H.cuda(x)
      local hv, hi = x:sort(2, true)
      -- torch.sort(resval, resind, x ...): the results are resized and returned.
      local rv, ri = H.cuda(torch[T]()), torch.CudaLongTensor()
      local v, i = torch.sort(rv, ri, d, 2, true)
      H.check(v == rv and i == ri, '%s torch.sort(rv, ri, x) returns its results', T)
      exact(rv, hv, T .. ' torch.sort(rv, ri, x) values')
      exact(ri, hi, T .. ' torch.sort(rv, ri, x) indices')
      -- Results of the wrong size, of the right size, and non-contiguous views are written.
      rv, ri = H.cuda(torch[T](3)), torch.CudaLongTensor(50)
      torch.sort(rv, ri, d, 2, true)
      exact(rv, hv, T .. ' resized values')
      exact(ri, hi, T .. ' resized indices')
      local tv, ti = H.cuda(torch[T](7, 6)):t(), torch.CudaLongTensor(7, 6):t()
      torch.sort(tv, ti, d, 2, true)
      H.check(not tv:isContiguous(), '%s the transposed result stays a view', T)
      exact(tv, hv, T .. ' transposed values result')
      exact(ti, hi, T .. ' transposed indices result')
      -- One result tensor: the values when of x's type, the indices when a CudaLongTensor.
      rv = H.cuda(torch[T]())
      v, i = rv:sort(d, 2, true)
      H.check(v == rv, '%s rv:sort(x) fills rv', T)
      exact(rv, hv, T .. ' rv:sort(x) values')
      exact(i, hi, T .. ' rv:sort(x) indices')
      if T ~= 'LongTensor' then
         ri = torch.CudaLongTensor()
         v, i = torch.sort(ri, d, 2, true)
         H.check(i == ri, '%s torch.sort(ri, x) fills ri', T)
         exact(v, hv, T .. ' torch.sort(ri, x) values')
         exact(ri, hi, T .. ' torch.sort(ri, x) indices')
      end
      -- The other four with result tensors.
      local forms = {
         { 'topk', { 3, 1, true } }, { 'kthvalue', { 2, 1 } }, { 'median', { 2 } }, { 'mode', { 1 } },
      }
      for _, form in ipairs(forms) do
         local name, extra = form[1], form[2]
         local wv, wi = x[name](x, unpack(extra))
         local gv, gi = H.cuda(torch[T]()), torch.CudaLongTensor()
         torch[name](gv, gi, d, unpack(extra))
         exact(gv, wv, T .. ' torch.' .. name .. '(rv, ri, x) values')
         exact(gi, wi, T .. ' torch.' .. name .. '(rv, ri, x) indices')
         same(T .. ' ' .. name .. ' into results', function(a, b, t) return torch[name](a, b, t, unpack(extra)) end,
            torch[T](), torch.LongTensor(), x)
      end
      -- Sorting in place: the values result is the input (read whole before it is written).
      same(T .. ' torch.sort(x, ri, x)', function(a, b) return torch.sort(a, b, a, 1) end, x:clone(),
         torch.LongTensor())
      same(T .. ' torch.topk(x, ri, x)', function(a, b) return torch.topk(a, b, a, 2, 2, true) end, x:clone(),
         torch.LongTensor())
      same(T .. ' view of x as result', function(a, b) return torch.median(a:narrow(2, 1, 1), b, a, 2) end,
         x:clone(), torch.LongTensor())
   end
   -- The indices result may be the input when that is a CudaLongTensor.
   same('torch.sort(rv, x, x) of longs', function(a, b) return torch.sort(a, b, b) end, torch.LongTensor(),
      rand('LongTensor', 3, 4, 5))
end

function cases.resultsOnTheInputsDevice()
   if cutorch.getDeviceCount() < 2 then return end
   local x = torch.FloatTensor(4, 9):uniform()
   local d = cutorch.withDevice(2, function() return x:cuda() end)
   H.eq(d:getDevice(), 2, 'input on device 2')
   local v, i = d:sort(2)
   H.eq(v:getDevice(), 2, 'values on the input\'s device')
   H.eq(i:getDevice(), 2, 'indices on the input\'s device')
   local hv, hi = x:sort(2)
   exact(v, hv, 'device 2 values')
   exact(i, hi, 'device 2 indices')
   H.raises('results on another device', function()
      torch.sort(torch.CudaTensor(4, 9), torch.CudaLongTensor(4, 9), d, 2)
   end, 'sort', 'different devices')
end

function cases.errors()
   local d = torch.FloatTensor(3, 4):uniform():cuda()
   H.raises('topk k too large', function() d:topk(5) end, 'topk', 'k (5) out of range for a dimension of size 4')
   H.raises('topk k 0', function() torch.topk(d, 0) end, 'topk', 'k (0) out of range')
   H.raises('topk k along dim 1', function() d:topk(4, 1) end, 'topk', 'k (4) out of range for a dimension of size 3')
   H.raises('kthvalue k 0', function() d:kthvalue(0) end, 'kthvalue', 'k (0) out of range')
   H.raises('kthvalue k too large', function() d:kthvalue(5) end, 'kthvalue', 'k (5) out of range')
   H.raises('kthvalue without k', function() d:kthvalue() end, 'kthvalue', 'invalid arguments')
   H.raises('k not an integer', function() d:topk(1.5) end, 'topk', 'k must be an integer')
   H.raises('sort dim 3', function() d:sort(3) end, 'sort', 'dimension 3 out of range of 2D tensor')
   H.raises('sort dim 0', function() torch.sort(d, 0) end, 'sort', 'dimension 0 out of range')
   H.raises('median dim 3', function() d:median(3) end, 'median', 'dimension 3 out of range')
   H.raises('mode dim -1', function() d:mode(-1) end, 'mode', 'out of range')
   H.raises('topk dim 3', function() d:topk(1, 3) end, 'topk', 'dimension 3 out of range')
   H.raises('kthvalue dim 3', function() d:kthvalue(1, 3) end, 'kthvalue', 'dimension 3 out of range')
   H.raises('median of an empty tensor', function() torch.CudaTensor():median() end, 'median', 'empty tensor')
   H.raises('sort of an empty tensor', function() torch.CudaTensor():sort() end, 'sort', 'empty tensor')
   -- A host tensor among device ones fits no form: Torch's message names it.
   H.raises('host indices result', function() torch.sort(torch.CudaTensor(), torch.LongTensor(), d) end, 'sort',
      'invalid arguments: CudaTensor LongTensor CudaTensor\nexpected arguments: [*CudaTensor*] [*CudaLongTensor*] CudaTensor')
   H.raises('host values result', function() d.sort(torch.FloatTensor(), torch.CudaLongTensor(), d) end, 'sort',
      'invalid arguments: FloatTensor CudaLongTensor CudaTensor')
   -- torch.f goes to the host's version when the first tensor is a host one: its error.
   H.raises('torch.sort with host results', function() torch.sort(torch.FloatTensor(), torch.LongTensor(), d) end,
      'sort')
   H.raises('too many tensors', function() d:sort(torch.CudaTensor(), torch.CudaLongTensor(), d) end, 'sort',
      'invalid arguments')
   H.raises('indices of the values type', function() torch.topk(torch.CudaTensor(), torch.CudaTensor(), d, 2) end,
      'topk', 'the indices result must be a torch.CudaLongTensor, got a torch.CudaTensor')
   H.raises('values of another type', function() torch.median(torch.CudaDoubleTensor(), torch.CudaLongTensor(), d) end,
      'median', 'the values result must be a torch.CudaTensor, got a torch.CudaDoubleTensor')
   H.raises('host values alone', function() torch.mode(torch.CudaTensor(), torch.CudaLongTensor(), torch.FloatTensor(3)) end,
      'mode', 'invalid arguments: CudaTensor CudaLongTensor FloatTensor')
   H.raises('a string', function() d:sort('x') end, 'sort', 'invalid arguments: CudaTensor string',
      'expected arguments: [*CudaTensor*] [*CudaLongTensor*] CudaTensor [index] [boolean]')
   H.raises('numbers after booleans', function() d:topk(1, true, 2) end, 'topk', 'invalid arguments')
   H.raises('too many numbers', function() d:median(1, 2) end, 'median', 'invalid arguments')
   -- Nothing changed on a failed call.
   local rv, ri = torch.CudaTensor(2), torch.CudaLongTensor(2)
   pcall(torch.topk, rv, ri, d, 9)
   H.eq(rv:nElement(), 2, 'values result untouched after an error')
end

return cases
