-- var, std, norm, dist, renorm, all and any.
local H = dofile('torch_reduce_helpers.lua')
local same, fails, num = H.same, H.fails, H.num
local nan, inf, sqrt = 0 / 0, math.huge, math.sqrt
local f = function(v) return torch.FloatTensor({ v })[1] end

---------------------------------------------------------------------------------------------------
-- var and std: unbiased (n - 1) by default, biased (n) with the flag.
local x = torch.Tensor({ { 2, 4, 4, 4 }, { 5, 5, 7, 9 } })
num(x:var(), 32 / 7)
num(torch.var(x), 32 / 7)
num(x:var(true), 4)
num(torch.var(x, true), 4)
num(x:var(false), 32 / 7)
num(x:std(true), 2)
num(torch.std(x), sqrt(32 / 7))
same(x:var(2), { { 1 }, { 11 / 3 } }, 'torch.DoubleTensor')
same(x:var(2, true), { { 0.75 }, { 2.75 } })
same(torch.var(x, 1), { { 4.5, 0.5, 4.5, 12.5 } })
same(torch.var(x, 1, true), { { 2.25, 0.25, 2.25, 6.25 } })
same(x:std(1), { { sqrt(4.5), sqrt(0.5), sqrt(4.5), sqrt(12.5) } })
same(torch.std(x, 1, true), { { 1.5, 0.5, 1.5, 2.5 } })
same(x:std(2, false), { { 1 }, { sqrt(11 / 3) } })
local r = torch.Tensor()
assert(H.is(r:var(x, 1), r))
same(r, { { 4.5, 0.5, 4.5, 12.5 } })
assert(H.is(torch.std(r, x, 2, true), r))
same(r, { { sqrt(0.75) }, { sqrt(2.75) } })
same(x, { { 2, 4, 4, 4 }, { 5, 5, 7, 9 } })
-- One element: the unbiased estimate is NaN (0/0), the biased one 0.
num(torch.Tensor({ 5 }):var(), nan)
num(torch.Tensor({ 5 }):var(true), 0)
same(torch.Tensor({ { 5, 6 } }):std(1), { { nan, nan } })
same(torch.Tensor({ { 5, 6 } }):std(1, true), { { 0, 0 } })
-- Float: computed in double, rounded once.
local xf = x:float()
num(xf:var(), 32 / 7)
same(xf:var(2), { { 1 }, { f(11 / 3) } }, 'torch.FloatTensor')
same(xf:std(1), { { f(sqrt(4.5)), f(sqrt(0.5)), f(sqrt(4.5)), f(sqrt(12.5)) } }, 'torch.FloatTensor')
-- Strided views and both walks, against plain Lua (two-pass).
local function lvar(l, biased)
   local s = 0
   for _, v in ipairs(l) do s = s + v end
   local m, q = s / #l, 0
   for _, v in ipairs(l) do q = q + (v - m) ^ 2 end
   return q / (biased and #l or #l - 1)
end
for _, T in ipairs(H.floats) do
   local base = H.random(T, 0, 50, 17, 3, 4, 10)
   for vname, t in pairs(H.views(base)) do
      num(t:var(), base:var(), 1e-12)
      for d = 1, 3 do
         local what = T .. ' ' .. vname .. ' var ' .. d
         local want = H.reference(t, d, function(l) return lvar(l) end):type(t:type())
         H.same(t:var(d), want:totable(), nil, 1e-6)
         want = H.reference(t, d, function(l) return sqrt(lvar(l, true)) end):type(t:type())
         H.same(t:std(d, true), want:totable(), nil, 1e-6)
      end
   end
end
-- A long lane: two-pass keeps the small variance of large values.
local big = torch.Tensor(100000)
for k = 1, 100000 do big[k] = 1e9 + (k % 2) end
num(big:var(true), 0.25, 1e-9)
num(big:view(1, 100000):var(2, true)[1][1], 0.25, 1e-9)

fails('var: not implemented for torch.IntTensor (Torch defines it for FloatTensor and DoubleTensor only)',
   function() return torch.IntTensor({ 1, 2 }):var() end)
fails('std: not implemented for torch.LongTensor (Torch defines it for FloatTensor and DoubleTensor only)',
   function() return torch.std(torch.LongTensor({ 1, 2 }), 1) end)
fails('var: empty tensor', function() return torch.Tensor():var() end)
fails('std: dimension 3 out of range of 2D tensor', function() return x:std(3) end)
fails('var: the result must be a torch.DoubleTensor, got a torch.FloatTensor',
   function() return torch.var(torch.FloatTensor(), x, 1) end)
fails('std: invalid arguments: DoubleTensor boolean number\nexpected arguments: DoubleTensor [boolean] | [*DoubleTensor*] DoubleTensor index [boolean]',
   function() return x:std(true, 1) end)

---------------------------------------------------------------------------------------------------
-- norm: p-norm (default 2) of the whole tensor, or along a dimension as norm(p, dim).
local y = torch.Tensor({ { 3, -4 }, { 0, 12 } })
num(y:norm(), 13)
num(torch.norm(y), 13)
num(y:norm(2), 13)
num(y:norm(1), 19)
num(torch.norm(y, 0), 3)
num(y:norm(inf), 12)
num(y:norm(3), (27 + 64 + 1728) ^ (1 / 3), 1e-14)
num(y:norm(0.5), (sqrt(3) + 2 + sqrt(12)) ^ 2, 1e-14)
same(y:norm(2, 1), { { 3, sqrt(160) } }, 'torch.DoubleTensor')
same(torch.norm(y, 1, 2), { { 7 }, { 12 } })
same(y:norm(0, 2), { { 2 }, { 1 } })
same(y:norm(inf, 1), { { 3, 12 } })
same(y:t():norm(1, 1), { { 7, 12 } })
r = torch.Tensor()
assert(H.is(torch.norm(r, y, 2, 2), r))
same(r, { { 5 }, { 12 } })
assert(H.is(r:norm(y, 1, 1), r))
same(r, { { 3, 16 } })
num(y:float():norm(), 13)
same(y:float():norm(2, 1), { { 3, f(sqrt(160)) } }, 'torch.FloatTensor')
num(torch.Tensor():norm(), 0)
-- Long inputs and strided ones.
num(torch.FloatTensor(1000000):fill(2):norm(), 2000)
num(torch.Tensor(40000):fill(-0.5):norm(1), 20000)
local m = H.seq('Double', 30, 40)
num(m:t():norm(), m:norm(), 1e-15)
H.same(m:t():norm(2, 1), m:norm(2, 2):t():totable(), nil, 1e-15)
H.same(m:narrow(2, 3, 20):norm(1, 1), m:narrow(2, 3, 20):sum(1):totable())

fails('norm: not implemented for torch.ByteTensor (Torch defines it for FloatTensor and DoubleTensor only)',
   function() return torch.ByteTensor({ 1 }):norm() end)
fails('norm: dimension 3 out of range of 2D tensor', function() return y:norm(2, 3) end)
fails('norm: invalid arguments: DoubleTensor number number number\nexpected arguments: DoubleTensor [number] | [*DoubleTensor*] DoubleTensor number index',
   function() return y:norm(2, 1, 1) end)

---------------------------------------------------------------------------------------------------
-- dist(a, b [, p]): the p-norm of a - b, over elements in order (shapes may differ).
local a, b = torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 4, 6, 3 })
num(a:dist(b), 5)
num(torch.dist(a, b), 5)
num(torch.dist(a, b, 1), 7)
num(a:dist(b, inf), 4)
num(a:dist(b, 0), 2)
num(a:dist(b, 3), (27 + 64) ^ (1 / 3), 1e-14)
num(torch.Tensor({ 1, 2, 3, 4 }):dist(torch.Tensor({ { 1, 2 }, { 3, 5 } })), 1)
num(m:t():dist(m:t():contiguous()), 0)
do
   local ts, ms, q = m:t():contiguous():storage(), m:storage(), 0
   for k = 1, 1200 do q = q + (ts[k] - ms[k]) ^ 2 end
   num(m:t():dist(m), sqrt(q), 1e-14)
end
num(a:float():dist(b:float()), 5)
fails('dist: inconsistent tensor size (3 elements vs 4)', function() return a:dist(torch.Tensor(4)) end)
fails('dist: expected a torch.DoubleTensor, got a torch.FloatTensor', function() return a:dist(b:float()) end)
fails('dist: not implemented for torch.IntTensor (Torch defines it for FloatTensor and DoubleTensor only)',
   function() return a:int():dist(b:int()) end)
fails('dist: invalid arguments: DoubleTensor\nexpected arguments: DoubleTensor DoubleTensor [number]', function() return a:dist() end)

---------------------------------------------------------------------------------------------------
-- renorm(p, dim, maxnorm): each slice along dim with a p-norm above maxnorm is scaled to it.
local function scaled(v, norm, maxnorm) return v * (maxnorm / (norm + 1e-7)) end
local z = torch.Tensor({ { 3, 4 }, { 0.3, 0.4 }, { 6, 8 } })
local z0 = z:clone()
local out = torch.renorm(z, 2, 1, 1)
same(z, z0:totable())
same(out, { { scaled(3, 5, 1), scaled(4, 5, 1) }, { 0.3, 0.4 }, { scaled(6, 10, 1), scaled(8, 10, 1) } })
assert(H.is(z:renorm(2, 1, 1), z))
H.equal(z, out, 'renorm in place')
local w = torch.Tensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } })
r = torch.Tensor()
assert(H.is(r:renorm(w, 1, 2, 6), r))
same(r, { { scaled(1, 9, 6), scaled(2, 12, 6) }, { scaled(3, 9, 6), scaled(4, 12, 6) },
   { scaled(5, 9, 6), scaled(6, 12, 6) } })
same(w, { { 1, 2 }, { 3, 4 }, { 5, 6 } })
assert(H.is(torch.renorm(r, w, 1, 2, 100), r))
same(r, { { 1, 2 }, { 3, 4 }, { 5, 6 } })
-- A strided receiver is scaled in place through its view.
local wt = w:clone():t()
wt:renorm(1, 1, 6)
same(wt, { { scaled(1, 9, 6), scaled(3, 9, 6), scaled(5, 9, 6) }, { scaled(2, 12, 6), scaled(4, 12, 6), scaled(6, 12, 6) } })
same(w:float():renorm(2, 2, 1), { { f(scaled(1, sqrt(35), 1)), f(scaled(2, sqrt(56), 1)) },
   { f(scaled(3, sqrt(35), 1)), f(scaled(4, sqrt(56), 1)) }, { f(scaled(5, sqrt(35), 1)), f(scaled(6, sqrt(56), 1)) } },
   'torch.FloatTensor')
-- 3-D: slices are whole matrices.
local c = H.seq('Double', 2, 2, 2)
assert(not H.is(torch.renorm(c, 1, 1, 10), c))
same(c, { { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } })
same(torch.renorm(c, 1, 1, 10), { { { 1, 2 }, { 3, 4 } },
   { { scaled(5, 26, 10), scaled(6, 26, 10) }, { scaled(7, 26, 10), scaled(8, 26, 10) } } })

fails('renorm: non-positive norm not supported (p = 0)', function() return w:renorm(0, 1, 1) end)
fails('renorm: need at least 2 dimensions, got 1 dimensions', function() return a:renorm(2, 1, 1) end)
fails('renorm: dimension 3 out of range of 2D tensor', function() return w:renorm(2, 3, 1) end)
fails('renorm: not implemented for torch.LongTensor (Torch defines it for FloatTensor and DoubleTensor only)',
   function() return torch.LongTensor(2, 2):renorm(2, 1, 1) end)
fails('renorm: invalid arguments: DoubleTensor number number\nexpected arguments: [*DoubleTensor*] DoubleTensor number index number',
   function() return w:renorm(2, 1) end)
fails('renorm: the result must be a torch.DoubleTensor, got a torch.FloatTensor',
   function() return torch.renorm(torch.FloatTensor(), w, 2, 1, 1) end)

---------------------------------------------------------------------------------------------------
-- all and any: ByteTensor only, booleans.
assert(torch.ByteTensor({ 1, 1, 1 }):all() == true)
assert(torch.ByteTensor({ 1, 0, 1 }):all() == false)
assert(torch.all(torch.ByteTensor({ 2, 255 })) == true)
assert(torch.ByteTensor({ 0, 0, 0 }):any() == false)
assert(torch.any(torch.ByteTensor({ 0, 0, 2 })) == true)
local bm = torch.ByteTensor(100, 200):fill(1)
assert(bm:all() and bm:t():all() and bm:any())
bm[100][200] = 0
assert(not bm:all() and not bm:t():all() and bm:narrow(1, 1, 99):all() and bm:any())
bm:zero()
assert(not bm:any() and not bm:t():any())
bm[37][2] = 1
assert(bm:t():any() and bm:select(2, 2):any() and not bm:select(2, 3):any())
assert(torch.ByteTensor({ 0 }):expand(5):any() == false)
fails('all: only defined for torch.ByteTensor, got a torch.FloatTensor', function() return torch.FloatTensor({ 1 }):all() end)
fails('any: only defined for torch.ByteTensor, got a torch.LongTensor', function() return torch.any(torch.LongTensor({ 1 })) end)
fails('all: empty tensor', function() return torch.ByteTensor():all() end)
fails('any: invalid arguments: ByteTensor number\nexpected arguments: ByteTensor',
   function() return torch.ByteTensor({ 1 }):any(1) end)
print('ok')
