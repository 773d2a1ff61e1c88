-- Constructors, copies, views, indexing, printing and the elementwise maths of device tensors,
-- each checked against the same call on host tensors (run by run_all.lua on a GPU machine).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}

local same = H.same

local function rand(T, ...)
   return torch[T](...):uniform(-2, 2)
end

function cases.constructors()
   for _, T in ipairs { 'CudaTensor', 'CudaDoubleTensor', 'CudaLongTensor' } do
      local e = torch[T]()
      H.eq(torch.type(e), 'torch.' .. T, 'type')
      H.eq(e:dim(), 0, 'empty')
      local z = torch[T](2, 3)
      H.eq(z:nElement(), 6, 'sizes')
      H.eq(z:sum(), 0, 'zero-filled')
      H.eq(z:getDevice(), 1, 'getDevice')
      local t = torch[T]({ { 1, 2 }, { 3, 4 } })
      H.eq(t[2][1], 3, 'from a table')
      H.eq(torch[T](torch.LongStorage({ 4, 5 })):size(2), 5, 'from a size storage')
      local shared = torch[T](t)
      shared[1][1] = 9
      H.eq(t[1][1], 9, 'tensor(tensor) shares')
      local s = t:storage()
      H.eq(torch.type(s), 'torch.' .. T:gsub('Tensor', 'Storage'), 'storage type')
      H.eq(s:size(), 4, 'storage size')
      local v = torch[T](s, 2, torch.LongStorage({ 3 }))
      H.eq(v[1], 2, 'storage view offset')
      local st = torch[T:gsub('Tensor', 'Storage')]({ 5, 6, 7 })
      H.eq(st[3], 7, 'storage from a table')
      st[3] = 8
      H.eq(st[3], 8, 'storage element write')
      H.eq(#st, 3, 'storage length')
      st:resize(5)
      H.eq(st:size(), 5, 'storage resize')
      H.eq(st[2], 6, 'resize keeps the data')
      st:fill(4)
      H.eq(st[5], 4, 'storage fill')
      H.eq(st:totable()[1], 4, 'storage totable')
   end
   H.eq(torch.CudaTensor(2, 2):fill(3):type(), 'torch.CudaTensor', 'type()')
   H.raises('wrong storage type', function() torch.CudaTensor(torch.CudaDoubleStorage(2)) end, 'torch.CudaTensor')
   H.raises('storage of a string', function() torch.CudaStorage('abc') end,
      'torch.CudaStorage: invalid arguments: string\nexpected arguments: no arguments | number | table | CudaStorage [number] [number]')
   H.raises('storage of a storage of another type', function() torch.CudaStorage(torch.CudaDoubleStorage(2)) end,
      'torch.CudaStorage: invalid arguments: CudaDoubleStorage\n')
end

function cases.conversions()
   local x = torch.FloatTensor(3, 4):uniform(-5, 5)
   local c = x:cuda()
   H.eq(torch.type(c), 'torch.CudaTensor', ':cuda()')
   H.close(c, x, 0, ':cuda()')
   H.close(c:float():cuda(), x, 0, ':float()')
   H.close(x:double():cudaDouble(), x:double(), 0, ':cudaDouble()')
   H.eq(torch.type(x:cudaDouble()), 'torch.CudaDoubleTensor', 'host :cudaDouble()')
   H.eq(torch.type(c:cudaLong()), 'torch.CudaLongTensor', 'device :cudaLong()')
   H.close(c:cudaLong(), x:long(), 0, 'float -> long on the device (truncation)')
   H.close(c:double():cuda(), x, 0, 'through double')
   H.eq(c:cuda(), c, ':cuda() of a CudaTensor is itself')
   H.eq(torch.type(c:long()), 'torch.LongTensor', ':long()')
   H.eq(torch.type(c:byte()), 'torch.ByteTensor', ':byte()')
   -- copy between every pair of types, in both directions, and through non-contiguous views.
   for _, src in ipairs { x, x:double(), x:long(), x:int() } do
      local d = torch.CudaDoubleTensor(3, 4):copy(src)
      H.close(d, src:double(), 0, 'copy from ' .. torch.type(src))
      local back = src.new(3, 4):copy(d)
      H.close(H.cuda(back:double()), src:double(), 0, 'copy to ' .. torch.type(src))
   end
   local t = torch.CudaTensor(4, 3):copy(x:t())
   H.close(t, x:t():contiguous(), 0, 'copy from a transposed host tensor')
   local host = torch.FloatTensor(4, 3)
   host:copy(c:t())
   H.close(host:cuda(), x:t():contiguous(), 0, 'copy of a transposed device tensor to the host')
   local dst = torch.CudaTensor(4, 3)
   dst:t():copy(x)
   H.close(dst:t(), x, 0, 'copy into a transposed device view')
   local l = torch.CudaLongTensor(3, 4):copy(c:t():t())
   H.close(l, x:long(), 0, 'device float -> long copy')
   H.raises('size mismatch', function() torch.CudaTensor(5):copy(x) end, 'copy', 'sizes do not match')
   -- Storages copy both ways.
   local s = torch.FloatStorage({ 1, 2, 3 })
   local cs = torch.CudaStorage(3):copy(s)
   H.eq(cs[2], 2, 'storage copy up')
   H.eq(torch.FloatStorage(3):copy(cs)[3], 3, 'storage copy down')
end

function cases.views()
   local x = rand('FloatTensor', 4, 5, 6)
   local views = {
      narrow = function(t) return t:narrow(2, 2, 3) end,
      select = function(t) return t:select(3, 4) end,
      transpose = function(t) return t:transpose(1, 3) end,
      t = function(t) return t[2]:t() end,
      permute = function(t) return t:permute(3, 1, 2) end,
      unfold = function(t) return t:unfold(3, 2, 2) end,
      expand = function(t) return t:narrow(2, 1, 1):expand(4, 7, 6) end,
      squeeze = function(t) return t:narrow(1, 2, 1):squeeze() end,
      unsqueeze = function(t) return t:unsqueeze(2) end,
      view = function(t) return t:view(20, 6) end,
      sub = function(t) return t:sub(2, 3, 1, 2) end,
      index = function(t) return t[3] end,
      ranges = function(t) return t[{ { 2, 3 }, 4, { 1, -2 } }] end,
   }
   for name, f in pairs(views) do
      same(name, function(t) return f(t):clone() end, { x:clone() })
   end
   -- Views share memory: a change through the view shows in the tensor.
   local c = x:cuda()
   c:narrow(2, 2, 1):fill(7)
   H.eq(c[1][2][1], 7, 'narrow shares')
   c:select(1, 4):zero()
   H.eq(c[4]:sum(), 0, 'select shares')
   c[1]:t():fill(1)
   H.eq(c:storage()[1], 1, 't() shares the storage')
   local v = c:view(-1)
   v[1] = 5
   H.eq(c[1][1][1], 5, 'view shares')
   H.check(c:transpose(1, 2):isContiguous() == false and c:isContiguous(), 'isContiguous')
   H.eq(c:stride(1), 30, 'stride')
   H.eq(c:storageOffset(), 1, 'storageOffset')
   H.eq(c:narrow(1, 2, 1):storageOffset(), 31, 'storageOffset of a view')
   local r = torch.CudaTensor(2, 2)
   r:resize(3, 4)
   H.eq(r:nElement(), 12, 'resize')
   r:resizeAs(c)
   H.check(r:isSameSizeAs(c), 'resizeAs')
   local s = torch.CudaTensor():set(c)
   s[1][1][1] = 42
   H.eq(c[1][1][1], 42, 'set shares')
   H.raises('bad view', function() c[1]:t():view(30) end, 'view', 'not contiguous')
end

function cases.indexing()
   local x = torch.FloatTensor({ { 1, 2, 3 }, { 4, 5, 6 } })
   local c = x:cuda()
   H.eq(c[2][3], 6, 'element')
   H.eq(c[{ 1, 2 }], 2, 'table index')
   H.eq(c[torch.LongStorage({ 2, 1 })], 4, 'LongStorage index')
   H.eq(c[1]:select(1, 2), 2, 'select on 1-D gives a number')
   H.close(c[{ {}, 2 }], x[{ {}, 2 }], 0, 'column')
   c[1][1] = 10
   c[{ 2, 3 }] = 11
   c[{ {}, 2 }] = 0
   c[{ 1, { 3 } }] = torch.FloatTensor({ 12 })
   local want = torch.FloatTensor({ { 10, 0, 12 }, { 4, 0, 11 } })
   H.close(c, want, 0, 'writes')
   c[2] = torch.CudaTensor({ 7, 8, 9 })
   H.close(c[2], torch.FloatTensor({ 7, 8, 9 }), 0, 'row from a device tensor')
   H.eq(#c:totable(), 2, 'totable')
   H.eq(c:totable()[2][3], 9, 'totable values')
   H.raises('mask', function() return c[torch.ByteTensor(2, 3)] end, '__index', 'not supported')
   H.raises('out of range', function() return c[3] end, '__index')
end

function cases.printing()
   local x = torch.FloatTensor({ { 1, 2, 3 }, { 4, 5, 6 } })
   local want = tostring(x):gsub('torch.FloatTensor', 'torch.CudaTensor')
   H.eq(tostring(x:cuda()), want, 'print format')
   H.check(tostring(x:cuda()):find('[torch.CudaTensor of size 2x3]', 1, true) ~= nil, 'footer')
   H.check(tostring(x:cudaDouble()):find('[torch.CudaDoubleTensor of size 2x3]', 1, true) ~= nil, 'double footer')
   H.check(tostring(torch.CudaTensor()):find('torch.CudaTensor', 1, true) ~= nil, 'empty')
   local s = tostring(torch.CudaStorage({ 1, 2 }))
   H.check(s:find('[torch.CudaStorage of size 2]', 1, true) ~= nil, 'storage footer: %s', s)
end

-- Every elementwise operation, in its forms, on contiguous and non-contiguous operands.
function cases.pointwise()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor' } do
      local tol = T == 'FloatTensor' and 1e-5 or 1e-12
      local pos = torch[T](5, 7):uniform(0.5, 3)
      local x, y = rand(T, 5, 7), rand(T, 5, 7)
      local xt = rand(T, 7, 5):t() -- non-contiguous
      for _, f in ipairs { 'exp', 'log', 'sqrt', 'rsqrt', 'log1p', 'cinv' } do
         same(T .. ' ' .. f, function(a) return torch[f](a) end, { pos }, tol)
      end
      for _, f in ipairs { 'tanh', 'sigmoid', 'abs', 'neg', 'sign', 'sin', 'cos', 'atan', 'floor', 'ceil', 'round',
         'trunc', 'frac', 'sinh', 'cosh', 'tan' } do
         same(T .. ' ' .. f, function(a) return torch[f](a) end, { x }, tol)
         same(T .. ' ' .. f .. ' on a view', function(a) return torch[f](a) end, { xt }, tol)
         same(T .. ' ' .. f .. ' in place', function(a) return a[f](a) end, { x:clone() }, tol)
         same(T .. ' res:' .. f, function(r, a) return r[f](r, a) end, { torch[T](), x }, tol)
      end
      same(T .. ' asin', function(a) return torch.asin(a) end, { torch[T](9):uniform(-1, 1) }, tol)
      same(T .. ' acos', function(a) return torch.acos(a) end, { torch[T](9):uniform(-1, 1) }, tol)
      local forms = {
         add_n = function(a) return a:clone():add(3) end,
         add_t = function(a, b) return a:clone():add(b) end,
         add_nt = function(a, b) return a:clone():add(2, b) end,
         add_res = function(a, b) return a.new():add(a, 2, b) end,
         add_fn = function(a, b) return torch.add(a, b) end,
         add_fn_res = function(a, b) local r = a.new() torch.add(r, a, 0.5, b) return r end,
         csub = function(a, b) return a:clone():csub(b) end,
         csub_n = function(a) return torch.csub(a, 1.5) end,
         mul = function(a) return torch.mul(a, -2) end,
         div = function(a) return a:clone():div(4) end,
         cmul = function(a, b) return torch.cmul(a, b) end,
         cdiv = function(a, b) return torch.cdiv(a, b:clone():add(10)) end,
         cmax = function(a, b) return torch.cmax(a, b) end,
         cmax_n = function(a) return torch.cmax(a, 0.5) end,
         cmin = function(a, b) return a:clone():cmin(b) end,
         cmin_n = function(a) return a:clone():cmin(0) end,
         clamp = function(a) return torch.clamp(a, -1, 1) end,
         fmod = function(a) return torch.fmod(a, 0.7) end,
         cfmod = function(a, b) return torch.cfmod(a, b:clone():add(3)) end,
         remainder = function(a) return torch.remainder(a, 0.7) end,
         cremainder = function(a, b) return torch.cremainder(a, b:clone():add(3)) end,
         pow = function(a) return torch.pow(a:clone():abs(), 1.5) end,
         tpow = function(a) return torch.pow(2, a) end,
         tpow_res = function(a) local r = a.new() r:pow(2, a) return r end,
         cpow = function(a, b) return torch.cpow(a:clone():abs(), b) end,
         atan2 = function(a, b) return torch.atan2(a, b) end,
         lerp = function(a, b) return torch.lerp(a, b, 0.3) end,
         addcmul = function(a, b) return a:clone():addcmul(2, a, b) end,
         addcmul1 = function(a, b) return torch.addcmul(a, a, b) end,
         addcdiv = function(a, b) return torch.addcdiv(a, 0.5, a, b:clone():add(10)) end,
         fill = function(a) return a:clone():fill(2.5) end,
         zero = function(a) return a:clone():zero() end,
         op_add = function(a, b) return a + b end,
         op_add_n = function(a) return 1 + a end,
         op_sub = function(a, b) return a - b end,
         op_sub_n = function(a) return 3 - a end,
         op_mul_n = function(a) return a * 3 end,
         op_div_n = function(a) return a / 3 end,
         op_unm = function(a) return -a end,
      }
      for name, f in pairs(forms) do
         same(T .. ' ' .. name, f, { x, y }, tol)
         same(T .. ' ' .. name .. ' on views', f, { xt, y:t():clone():t() }, tol)
      end
      -- Same element count, other shapes: each operand in its own logical order.
      same(T .. ' add of other shapes', function(a, b) return torch.add(a, b) end, { x, rand(T, 35) }, tol)
      -- Expanded operands (stride 0).
      same(T .. ' cmul with an expanded operand', function(a, b) return torch.cmul(a, b:expand(5, 7)) end,
         { x, rand(T, 1, 7) }, tol)
      H.raises('size mismatch', function() torch.add(H.cuda(x), H.cuda(rand(T, 3))) end, 'add', 'inconsistent')
   end
end

-- Comparisons give 1 and 0 in the operand's type (the host gives a ByteTensor of the same).
function cases.comparisons()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor', 'LongTensor' } do
      local a = torch[T](4, 6):random(1, 4)
      local b = torch[T](6, 4):random(1, 4):t() -- a view
      local da, db = H.cuda(a), H.cuda(b)
      for _, f in ipairs { 'lt', 'le', 'gt', 'ge', 'eq', 'ne' } do
         local what = T .. ' ' .. f
         H.close(torch[f](da, db), torch[f](a, b):type('torch.' .. T), 0, what .. ' with a tensor')
         H.close(da[f](da, 2), torch[f](a, 2):type('torch.' .. T), 0, what .. ' with a number')
         H.eq(da:sum(), a:sum(), what .. ': a:' .. f .. '(b) leaves a alone')
         local res = H.cuda(torch[T]())
         res[f](res, da, db)
         H.close(res, torch[f](a, b):type('torch.' .. T), 0, what .. ' res:' .. f .. '(a, b)')
         torch[f](res, da, 3)
         H.close(res, torch[f](a, 3):type('torch.' .. T), 0, what .. ' torch.' .. f .. '(res, a, n)')
      end
   end
   local x = torch.CudaTensor(3)
   H.raises('bad operand', function() x:gt('a') end, 'gt', 'expected arguments')
   H.raises('host operand', function() torch.lt(x, torch.FloatTensor(3)) end, 'lt', 'expected arguments')
   H.eq(torch.eq(torch.CudaTensor({ 1, 2, 3 }), torch.CudaTensor({ 1, 0, 3 })):sum(), 2, 'an accuracy count')
   -- maskedFill with a comparison's result as the mask, on a view too.
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor', 'LongTensor' } do
      local a = torch[T](6, 4):random(-3, 3):t()
      local want = a:clone():maskedFill(torch.gt(a, 0), -7)
      local da = H.cuda(a)
      da:maskedFill(torch.gt(da, 0), -7)
      H.close(da, want, 0, T .. ' maskedFill')
   end
end

-- The device maths bind through the host's table of forms: the same forms, the same text.
function cases.formsAsOnTheHost()
   local x, y = torch.CudaTensor(3):fill(1), torch.CudaTensor(3):fill(2)
   H.raises('add with a string', function() x:add('a') end,
      'add: invalid arguments: CudaTensor string\nexpected arguments: *CudaTensor* [CudaTensor] number | ' ..
      '*CudaTensor* [CudaTensor] [number] CudaTensor')
   H.raises('torch.add of another type', function() torch.add(x, torch.CudaDoubleTensor(3)) end,
      'invalid arguments: CudaTensor CudaDoubleTensor', '[*CudaTensor*] CudaTensor number')
   H.raises('sum with a string', function() x:sum('a') end, 'sum: invalid arguments: CudaTensor string')
   -- Every form of add and csub, as a method and as a function.
   H.eq(x:clone():add(2):sum(), 9, 'x:add(n)')
   H.eq(x:clone():add(y):sum(), 9, 'x:add(y)')
   H.eq(x:clone():add(3, y):sum(), 21, 'x:add(n, y)')
   H.eq(x:clone():add(x, 3, y):sum(), 21, 'res:add(x, n, y)')
   H.eq(torch.add(x, 3, y):sum(), 21, 'torch.add(x, n, y)')
   H.eq(torch.csub(x, 1):sum(), 0, 'torch.csub(x, n)')
   H.eq(x:clone():csub(2, y):sum(), -9, 'x:csub(n, y)')
   H.eq(torch.pow(2, y):sum(), 12, 'torch.pow(n, x)')
   H.eq(torch.addcmul(x, 0.5, y, y):sum(), 9, 'torch.addcmul(x, n, y, z)')
   H.eq(torch.clamp(y, 0, 1.5):sum(), 4.5, 'torch.clamp(x, lo, hi)')
   local r = torch.CudaTensor()
   H.eq(torch.sum(r, y, 1):sum(), 6, 'torch.sum(res, x, dim)')
   H.eq(r:size(1), 1, 'the result resized')
   H.eq(torch.norm(y, 1), 6, 'torch.norm(x, p)')
   H.eq(torch.cumsum(y):sum(), 12, 'torch.cumsum(x)')
end

function cases.index()
   for _, T in ipairs { 'FloatTensor', 'DoubleTensor', 'LongTensor' } do
      local x = torch[T](5, 6, 4):random(-9, 9)
      local views = { contiguous = x, transposed = x:transpose(1, 3) }
      for vn, v in pairs(views) do
         -- The same view of a device copy of x.
         local dv = vn == 'transposed' and H.cuda(x):transpose(1, 3) or H.cuda(x)
         for dim = 1, 3 do
            local pos = torch.LongTensor({ 2, 1, 2, v:size(dim) })
            local what = string.format('%s index of a %s tensor along %d', T, vn, dim)
            H.close(dv:index(dim, pos), v:index(dim, pos), 0, what)
            H.close(torch.index(dv, dim, H.cuda(pos)), v:index(dim, pos), 0, what .. ' with CudaLongTensor positions')
            local res = H.cuda(torch[T](2, 2)):t() -- resized by index
            res:index(dv, dim, pos)
            H.close(res, v:index(dim, pos), 0, what .. ' into res')
         end
      end
   end
   local x = torch.CudaTensor(3, 4)
   H.raises('out of range', function() x:index(1, torch.LongTensor({ 4 })) end, 'index', 'out of range')
   H.raises('zero', function() x:index(2, torch.LongTensor({ 0 })) end, 'index', 'out of range')
   H.raises('bad dim', function() x:index(3, torch.LongTensor({ 1 })) end, 'index', 'dimension')
   H.raises('float positions', function() x:index(1, torch.FloatTensor({ 1 })) end, 'index', 'LongTensor')
end

function cases.cat()
   local a, b = torch.FloatTensor(2, 3):uniform(), torch.FloatTensor(2, 4):uniform()
   local c = torch.FloatTensor(5, 3):uniform()
   same('cat of two', function(x, y) return torch.cat(x, y) end, { a, b })
   same('cat along 1', function(x, y) return torch.cat(x, y, 1) end, { a, c })
   same('cat of a table', function(x, y, z) return torch.cat({ x, z:narrow(1, 2, 2), y }, 2) end, { a, b, c })
   same('cat with -1', function(x, y) return torch.cat(x, y, -1) end, { a, b })
   same('x:cat(y)', function(x, y) return x:cat(y) end, { a, b })
   same('cat into res', function(r, x, y) torch.cat(r, x, y, 2) return r end, { torch.FloatTensor(), a, b })
   same('cat of 1-D', function(x, y) return torch.cat(x:view(-1), y:view(-1)) end, { a, b })
   H.raises('mismatch', function() torch.cat(a:cuda(), c:cuda(), 2) end, 'cat', 'size')
end

function cases.longPointwise()
   local a = torch.LongTensor({ { -7, 3, 0 }, { 12, -5, 9 } })
   local b = torch.LongTensor({ { 2, -3, 4 }, { 5, 2, -4 } })
   for name, f in pairs {
      add = function(x, y) return torch.add(x, 3, y) end,
      mul = function(x) return torch.mul(x, -3) end,
      div = function(x) return torch.div(x, 2) end,
      cdiv = function(x, y) return torch.cdiv(x, y) end,
      cmul = function(x, y) return torch.cmul(x, y) end,
      fmod = function(x) return torch.fmod(x, 4) end,
      remainder = function(x) return torch.remainder(x, 4) end,
      cremainder = function(x, y) return torch.cremainder(x, y) end,
      pow = function(x) return torch.pow(x, 2) end,
      abs = function(x) return torch.abs(x) end,
      neg = function(x) return -x end,
      sign = function(x) return torch.sign(x) end,
      clamp = function(x) return torch.clamp(x, -2, 5) end,
      cmax = function(x, y) return torch.cmax(x, y) end,
      fill = function(x) return x:clone():fill(-3) end,
   } do
      same('long ' .. name, f, { a, b }, 0)
   end
   local c = H.cuda(a)
   H.raises('exp on long', function() torch.exp(c) end, 'exp', 'not supported for torch.CudaLongTensor')
   H.raises('integer division by zero', function() torch.div(c, 0) end, 'div', 'division by zero')
   H.raises('integer cdiv by zero', function() torch.cdiv(c, c) end, 'cdiv', 'division by zero')
   H.raises('mixed types', function() torch.add(c, torch.CudaTensor(2, 3)) end, 'add')
end

return cases
