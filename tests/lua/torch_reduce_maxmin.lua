-- max and min: numbers, values with 1-based LongTensor indices, ties, NaN, every type, strided
-- inputs, result tensors, errors.
local H = dofile('torch_reduce_helpers.lua')
local same, fails, num = H.same, H.fails, H.num
local nan, inf = 0 / 0, math.huge

local x = torch.Tensor({ { 3, 7, 7 }, { 9, 1, 9 } })

-- With no dimension: the element itself, as a number.
num(x:max(), 9)
num(torch.max(x), 9)
num(x:min(), 1)
num(torch.min(x), 1)

-- Along a dimension: values keeping the dimension, and the index of the first extreme.
local v, i = x:max(2)
same(v, { { 7 }, { 9 } }, 'torch.DoubleTensor')
same(i, { { 2 }, { 1 } }, 'torch.LongTensor')
v, i = x:max(1)
same(v, { { 9, 7, 9 } })
same(i, { { 2, 1, 2 } })
v, i = torch.min(x, 1)
same(v, { { 3, 1, 7 } })
same(i, { { 1, 2, 1 } })
v, i = torch.min(x, 2)
same(v, { { 3 }, { 1 } })
same(i, { { 1 }, { 2 } })
v, i = torch.Tensor({ 5, 2, 8, 8 }):max(1)
same(v, { 8 })
same(i, { 3 })
same(x, { { 3, 7, 7 }, { 9, 1, 9 } })

-- Results into given tensors: (resval, resind, x, dim), or just one of them.
local rv, ri = torch.Tensor(), torch.LongTensor()
local a, b = torch.max(rv, ri, x, 2)
assert(H.is(a, rv) and H.is(b, ri))
same(rv, { { 7 }, { 9 } })
same(ri, { { 2 }, { 1 } })
a, b = rv:min(ri, x, 1)
assert(H.is(a, rv) and H.is(b, ri))
same(rv, { { 3, 1, 7 } })
same(ri, { { 1, 2, 1 } })
local only_v = torch.Tensor(7)
a, b = torch.max(only_v, x, 1)
assert(H.is(a, only_v) and not H.is(b, ri))
same(only_v, { { 9, 7, 9 } })
same(b, { { 2, 1, 2 } }, 'torch.LongTensor')
local only_i = torch.LongTensor()
a, b = torch.min(only_i, x, 2)
assert(H.is(b, only_i))
same(a, { { 3 }, { 1 } }, 'torch.DoubleTensor')
same(only_i, { { 1 }, { 2 } })

-- NaN wins, at the index of the first NaN; infinities are ordinary extremes.
local xn = torch.Tensor({ { 1, nan, 3, nan }, { 4, 5, 6, 2 } })
num(xn:max(), nan)
num(xn:min(), nan)
v, i = xn:max(2)
same(v, { { nan }, { 6 } })
same(i, { { 2 }, { 3 } })
v, i = xn:min(2)
same(v, { { nan }, { 2 } })
same(i, { { 2 }, { 4 } })
v, i = xn:max(1)
same(v, { { 4, nan, 6, nan } })
same(i, { { 2, 1, 2, 1 } })
v, i = torch.Tensor({ 9, nan, 10 }):max(1)
same(v, { nan })
same(i, { 2 })
v, i = torch.Tensor({ 2, -inf, inf, 5 }):min(1)
same(v, { -inf })
same(i, { 2 })
num(torch.Tensor({ 2, -inf, inf, 5 }):max(), inf)

-- Long contiguous lanes (the vectorised path): the value, and the first index that holds it.
local long = H.seq('Double', 1000)
long[700] = nan
num(long:max(), nan)
v, i = long:max(1)
same(i, { 700 })
long = H.seq('Float', 1000)
long[10] = 5000
num(long:max(), 5000)
v, i = long:max(1)
same(v, { 5000 }, 'torch.FloatTensor')
same(i, { 10 })
long = torch.FloatTensor(1000):fill(1)
long[500], long[800] = 3, 3
v, i = long:max(1)
same(i, { 500 })
long[900] = -2
v, i = long:min(1)
same(v, { -2 })
same(i, { 900 })
-- Along the outer dimension of a wide matrix (slab by slab): first index on ties, NaN sticks.
local wide = torch.FloatTensor(3, 40):fill(0)
wide[2][5], wide[3][5] = 7, 7
wide[1][6], wide[2][6] = 1, nan
wide[2][7], wide[3][7] = nan, 9
v, i = wide:max(1)
assert(v[1][5] == 7 and i[1][5] == 2)
assert(v[1][6] ~= v[1][6] and i[1][6] == 2)
assert(v[1][7] ~= v[1][7] and i[1][7] == 2)
assert(v[1][1] == 0 and i[1][1] == 1)
v, i = wide:min(1)
assert(v[1][6] ~= v[1][6] and i[1][6] == 2)
assert(v[1][5] == 0 and i[1][5] == 1)

-- Integer types: numbers of the element's value; values of the same type.
num(torch.ByteTensor({ 3, 250, 7 }):max(), 250)
num(torch.CharTensor({ -3, -128, 5 }):min(), -128)
num(torch.LongTensor({ 2 ^ 40, -2 ^ 50 }):min(), -2 ^ 50)
v, i = torch.ShortTensor({ { 4, -9, 4 } }):min(2)
same(v, { { -9 } }, 'torch.ShortTensor')
same(i, { { 2 } }, 'torch.LongTensor')

-- Every type, every dimension, every kind of view, against plain Lua loops.
local function lmax(l)
   local b = 1
   for k = 2, #l do if l[k] > l[b] then b = k end end
   return b
end
local function lmin(l)
   local b = 1
   for k = 2, #l do if l[k] < l[b] then b = k end end
   return b
end
for _, T in ipairs(H.types) do
   local base = H.random(T, 0, 20, 13, 3, 4, 10)
   for vname, t in pairs(H.views(base)) do
      num(t:max(), base:max())
      num(t:min(), base:min())
      for d = 1, 3 do
         local what = T .. ' ' .. vname .. ' dim ' .. d
         local mv, mi = t:max(d)
         H.equal(mi, H.reference(t, d, lmax):long(), what .. ' max index')
         H.equal(mv, H.reference(t, d, function(l) return l[lmax(l)] end):type(t:type()), what .. ' max')
         local nv, ni = torch.min(t, d)
         H.equal(ni, H.reference(t, d, lmin):long(), what .. ' min index')
         H.equal(nv, H.reference(t, d, function(l) return l[lmin(l)] end):type(t:type()), what .. ' min')
      end
   end
end

-- Errors.
fails('max: empty tensor', function() return torch.Tensor():max() end)
fails('min: empty tensor', function() return torch.ByteTensor():min() end)
fails('max: dimension 3 out of range of 2D tensor', function() return x:max(3) end)
fails('min: dimension 0 out of range of 2D tensor', function() return torch.min(x, 0) end)
fails('max: dimension must be an integer, got 0.5', function() return x:max(0.5) end)
fails('max: the indices result must be a torch.LongTensor, got a torch.IntTensor',
   function() return torch.max(torch.Tensor(), torch.IntTensor(), x, 1) end)
fails('min: the values result must be a torch.DoubleTensor, got a torch.FloatTensor',
   function() return torch.min(torch.FloatTensor(), torch.LongTensor(), x, 1) end)
fails('max: the indices result must be a torch.LongTensor, got a torch.FloatTensor',
   function() return torch.max(torch.FloatTensor(), x, 1) end)
fails('max: invalid arguments: DoubleTensor DoubleTensor\nexpected arguments: DoubleTensor | [*DoubleTensor*] [*LongTensor*] DoubleTensor index',
   function() return x:max(x) end)
fails('min: invalid arguments: DoubleTensor boolean\nexpected arguments: DoubleTensor | [*DoubleTensor*] [*LongTensor*] DoubleTensor index',
   function() return x:min(true) end)
print('ok')
