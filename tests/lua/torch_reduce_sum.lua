-- sum, prod and mean: every form, every type, strided inputs, results into given tensors, errors.
local H = dofile('torch_reduce_helpers.lua')
local same, fails, num = H.same, H.fails, H.num

local x = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })

-- With no dimension: a Lua number.
num(x:sum(), 21)
num(torch.sum(x), 21)
num(x:prod(), 720)
num(torch.prod(x), 720)
num(x:mean(), 3.5)
num(torch.mean(x), 3.5)

-- Along a dimension: a new tensor of the same type keeping the dimension with size 1.
same(x:sum(1), { { 5, 7, 9 } }, 'torch.DoubleTensor')
same(x:sum(2), { { 6 }, { 15 } }, 'torch.DoubleTensor')
same(torch.sum(x, 2), { { 6 }, { 15 } })
same(x:prod(1), { { 4, 10, 18 } })
same(torch.prod(x, 2), { { 6 }, { 120 } })
same(x:mean(1), { { 2.5, 3.5, 4.5 } })
same(torch.mean(x, 2), { { 2 }, { 5 } })
same(x, { { 1, 2, 3 }, { 4, 5, 6 } })
same(torch.Tensor({ 1, 2, 3 }):sum(1), { 6 })
same(torch.Tensor({ 1, 2, 3 }):prod(1), { 6 })
local s1 = x:sum(1)
assert(not H.is(s1, x) and s1:isContiguous())

-- Results into a given tensor, returned: res:f(x, dim) and torch.f(res, x, dim).
local r = torch.Tensor()
assert(H.is(r:sum(x, 2), r))
same(r, { { 6 }, { 15 } })
local r2 = torch.Tensor(5, 5):fill(7)
assert(H.is(torch.sum(r2, x, 1), r2))
same(r2, { { 5, 7, 9 } })
assert(H.is(torch.mean(r2, x, 2), r2))
same(r2, { { 2 }, { 5 } })
-- A result of the right size keeps its (non-contiguous) strides: the values land in its storage.
local big = torch.Tensor(3, 2):zero()
local col = big:t():narrow(1, 1, 1)
assert(H.is(torch.prod(col, x, 1), col))
same(big, { { 4, 0 }, { 10, 0 }, { 18, 0 } })
-- The source may be the result itself.
local self = torch.Tensor({ { 1, 2 }, { 3, 4 } })
torch.sum(self, self, 1)
same(self, { { 4, 6 } })

-- Integer types: the whole-tensor result is accumulated in 64 bits (Torch's accreal `long`); along
-- a dimension the total is cast back to the element type, wrapping like C.
local b = torch.ByteTensor({ { 200, 100 }, { 50, 10 } })
num(b:sum(), 360)
num(b:prod(), 10000000)
same(b:sum(1), { { 250, 110 } }, 'torch.ByteTensor')
same(b:sum(2), { { 44 }, { 60 } }, 'torch.ByteTensor')
same(b:prod(2), { { 32 }, { 244 } }, 'torch.ByteTensor')
num(torch.CharTensor({ -100, -100 }):sum(), -200)
same(torch.CharTensor({ { -100, -100 } }):sum(2), { { 56 } }, 'torch.CharTensor')
num(torch.IntTensor({ 2 ^ 30, 2 ^ 30, 2 ^ 30 }):sum(), 3 * 2 ^ 30)
same(torch.IntTensor({ { 2 ^ 30, 2 ^ 30, 2 ^ 30 } }):sum(2), { { -2 ^ 30 } }, 'torch.IntTensor')
num(torch.LongTensor({ 2 ^ 40, 2 ^ 40, -3 }):sum(), 2 ^ 41 - 3)
num(torch.ShortTensor({ 300, 300 }):prod(), 90000)

-- Float accumulates in double (Torch's accreal) and rounds once when the result is a FloatTensor.
local f = torch.FloatTensor({ 0.1, 0.2 })
num(f:sum(), f[1] + f[2])
same(f:sum(1), { torch.FloatTensor({ f[1] + f[2] })[1] }, 'torch.FloatTensor')
num(f:mean(), (f[1] + f[2]) / 2)

-- Long inputs: exact integer totals, and a float32 total that naive float32 accumulation misses.
local n = 100003
num(H.seq('Double', n):sum(), n * (n + 1) / 2)
num(H.seq('Float', n):sum(), n * (n + 1) / 2)
num(H.seq('Long', n):sum(), n * (n + 1) / 2)
num(H.seq('Int', n):sum(), n * (n + 1) / 2)
local tenth = torch.FloatTensor(1000000):fill(0.1)
num(tenth:sum(), 1000000 * tenth[1], 1e-12)
num(tenth:mean(), tenth[1], 1e-12)
same(tenth:view(1000, 1000):sum(1), { torch.FloatTensor(1000):fill(1000 * tenth[1]):totable() })
same(tenth:view(1000, 1000):sum(2):view(1000), torch.FloatTensor(1000):fill(1000 * tenth[1]):totable())

-- Strided inputs: a transpose, a narrowed window and an expanded tensor give the same totals.
local m = H.seq('Double', 4, 6)
num(m:t():sum(), 300)
same(m:t():sum(1), { { 21, 57, 93, 129 } })
same(m:t():sum(2), { { 40 }, { 44 }, { 48 }, { 52 }, { 56 }, { 60 } })
same(m:narrow(2, 2, 3):sum(2), { { 9 }, { 27 }, { 45 }, { 63 } })
same(m:select(2, 3):sum(1), { 48 })
local e = torch.Tensor({ 1, 2, 3 }):view(3, 1):expand(3, 4)
num(e:sum(), 24)
same(e:sum(2), { { 4 }, { 8 }, { 12 } })
same(e:sum(1), { { 6, 6, 6, 6 } })
num(e:prod(), 1296)

-- Every type, every dimension, every kind of view, against plain Lua loops.
local function lsum(v) local s = 0 for _, a in ipairs(v) do s = s + a end return s end
local function lprod(v) local s = 1 for _, a in ipairs(v) do s = s * a end return s end
for _, T in ipairs(H.types) do
   local base = H.random(T, 0, 9, 7, 3, 4, 10)
   local small = H.random(T, 1, 2, 11, 3, 4, 5)
   for vname, v in pairs(H.views(base)) do
      num(v:sum(), base:sum())
      for d = 1, 3 do
         H.equal(v:sum(d), H.reference(v, d, lsum):type(v:type()), T .. ' ' .. vname .. ' sum ' .. d)
         H.equal(torch.sum(v, d), v:sum(d), 'torch.sum')
      end
   end
   for vname, v in pairs(H.views(small)) do
      for d = 1, 3 do
         H.equal(v:prod(d), H.reference(v, d, lprod):type(v:type()), T .. ' ' .. vname .. ' prod ' .. d)
      end
   end
end
for _, T in ipairs(H.floats) do
   local base = H.random(T, 0, 9, 5, 3, 4, 10)
   for vname, v in pairs(H.views(base)) do
      for d = 1, 3 do
         local want = H.reference(v, d, function(l) return lsum(l) / #l end):type(v:type())
         H.equal(v:mean(d), want, T .. ' ' .. vname .. ' mean ' .. d)
      end
   end
end

-- Empty tensors.
num(torch.Tensor():sum(), 0)
num(torch.Tensor():prod(), 1)
num(torch.IntTensor():sum(), 0)

-- Errors name the method and the expected form.
fails('sum: dimension 3 out of range of 2D tensor', function() return x:sum(3) end)
fails('sum: dimension 0 out of range of 2D tensor', function() return x:sum(0) end)
fails('prod: dimension -1 out of range of 2D tensor', function() return torch.prod(x, -1) end)
fails('mean: dimension 3 out of range of 2D tensor', function() return x:mean(3) end)
fails('sum: dimension 1 out of range of 0D tensor', function() return torch.Tensor():sum(1) end)
fails('sum: dimension must be an integer, got 1.5', function() return x:sum(1.5) end)
fails('sum: invalid arguments: DoubleTensor string\nexpected arguments: DoubleTensor | [*DoubleTensor*] DoubleTensor index',
   function() return x:sum('a') end)
fails('sum: invalid arguments: DoubleTensor number number\nexpected arguments: DoubleTensor | [*DoubleTensor*] DoubleTensor index',
   function() return x:sum(1, 2) end)
fails('sum: invalid arguments: no arguments\nexpected arguments: DoubleTensor | [*DoubleTensor*] DoubleTensor index',
   function() return torch.sum() end)
fails('prod: invalid arguments: number\nexpected arguments: DoubleTensor | [*DoubleTensor*] DoubleTensor index',
   function() return torch.prod(3) end)
fails('sum: the result must be a torch.DoubleTensor, got a torch.FloatTensor',
   function() return torch.sum(torch.FloatTensor(), x, 1) end)
fails('mean: not implemented for torch.IntTensor (Torch defines it for FloatTensor and DoubleTensor only)',
   function() return torch.IntTensor({ 1 }):mean() end)
fails('mean: not implemented for torch.ByteTensor (Torch defines it for FloatTensor and DoubleTensor only)',
   function() return torch.mean(torch.ByteTensor({ 1 }), 1) end)
fails('mean: empty tensor', function() return torch.Tensor():mean() end)

-- Every class has the methods, and torch.* has the functions.
for _, T in ipairs(H.types) do
   for _, name in ipairs({ 'sum', 'prod', 'mean' }) do
      assert(type(torch[T .. 'Tensor'][name]) == 'function', T .. ' lacks ' .. name)
   end
end
print('ok')
