-- cumsum and cumprod: default dimension 1, every form and type, strided inputs, errors.
local H = dofile('torch_reduce_helpers.lua')
local same, fails = H.same, H.fails
local f = function(v) return torch.FloatTensor({ v })[1] end

local x = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
same(x:cumsum(), { { 1, 2, 3 }, { 5, 7, 9 } }, 'torch.DoubleTensor')
same(x:cumsum(1), { { 1, 2, 3 }, { 5, 7, 9 } })
same(x:cumsum(2), { { 1, 3, 6 }, { 4, 9, 15 } })
same(torch.cumsum(x), { { 1, 2, 3 }, { 5, 7, 9 } })
same(torch.cumsum(x, 2), { { 1, 3, 6 }, { 4, 9, 15 } })
same(x:cumprod(), { { 1, 2, 3 }, { 4, 10, 18 } })
same(torch.cumprod(x, 2), { { 1, 2, 6 }, { 4, 20, 120 } })
same(x, { { 1, 2, 3 }, { 4, 5, 6 } })
assert(not H.is(x:cumsum(), x))
same(torch.Tensor({ 1, 2, 3, 4 }):cumsum(), { 1, 3, 6, 10 })
same(torch.Tensor({ 1, 2, 3, 4 }):cumprod(1), { 1, 2, 6, 24 })

-- Results into a given tensor.
local r = torch.Tensor()
assert(H.is(r:cumsum(x, 2), r))
same(r, { { 1, 3, 6 }, { 4, 9, 15 } })
assert(H.is(torch.cumprod(r, x), r))
same(r, { { 1, 2, 3 }, { 4, 10, 18 } })
local self = x:clone()
assert(H.is(torch.cumsum(self, self, 2), self))
same(self, { { 1, 3, 6 }, { 4, 9, 15 } })
-- A non-contiguous result of the right size is written through its view.
local big = torch.Tensor(3, 2):zero()
torch.cumsum(big:t(), x, 2)
same(big, { { 1, 4 }, { 3, 9 }, { 6, 15 } })

-- Integer types wrap like C; float32 accumulates in double and rounds each result.
same(torch.ByteTensor({ 200, 100 }):cumsum(), { 200, 44 }, 'torch.ByteTensor')
same(torch.CharTensor({ 100, 100 }):cumsum(), { 100, -56 }, 'torch.CharTensor')
same(torch.IntTensor({ 65536, 65536, 3 }):cumprod(), { 65536, 0, 0 }, 'torch.IntTensor')
same(torch.LongTensor({ 2 ^ 40, 2 ^ 40 }):cumsum(), { 2 ^ 40, 2 ^ 41 }, 'torch.LongTensor')
local ft = torch.FloatTensor({ 0.1, 0.2, 0.3 })
same(ft:cumsum(), { ft[1], f(ft[1] + ft[2]), f(ft[1] + ft[2] + ft[3]) }, 'torch.FloatTensor')

-- Every type, every dimension, every kind of view, against plain Lua loops.
local function lcumsum(l)
   local out, s = {}, 0
   for k, v in ipairs(l) do s = s + v out[k] = s end
   return out
end
local function lcumprod(l)
   local out, s = {}, 1
   for k, v in ipairs(l) do s = s * v out[k] = s end
   return out
end
for _, T in ipairs(H.types) do
   local base = H.random(T, 0, 9, 23, 3, 4, 10)
   local small = H.random(T, 1, 2, 29, 3, 4, 5)
   for vname, t in pairs(H.views(base)) do
      for d = 1, 3 do
         H.equal(t:cumsum(d), H.reference(t, d, lcumsum):type(t:type()), T .. ' ' .. vname .. ' cumsum ' .. d)
      end
   end
   for vname, t in pairs(H.views(small)) do
      for d = 1, 3 do
         H.equal(torch.cumprod(t, d), H.reference(t, d, lcumprod):type(t:type()), T .. ' ' .. vname .. ' cumprod ' .. d)
      end
   end
end
-- Longer lanes, both walks.
local long = H.seq('Double', 100, 10)
H.equal(long:cumsum(1), H.reference(long, 1, lcumsum), 'long cumsum 1')
H.equal(long:cumsum(2), H.reference(long, 2, lcumsum), 'long cumsum 2')
H.equal(long:t():cumsum(2), H.reference(long:t(), 2, lcumsum), 'long transposed cumsum 2')
assert(H.seq('Double', 1000):cumsum()[1000] == 500500)

-- Errors.
fails('cumsum: dimension 3 out of range of 2D tensor', function() return x:cumsum(3) end)
fails('cumprod: dimension 0 out of range of 2D tensor', function() return torch.cumprod(x, 0) end)
fails('cumsum: dimension 1 out of range of 0D tensor', function() return torch.Tensor():cumsum() end)
fails('cumsum: invalid arguments: DoubleTensor boolean\nexpected arguments: [*DoubleTensor*] DoubleTensor [index]',
   function() return x:cumsum(true) end)
fails('cumprod: the result must be a torch.DoubleTensor, got a torch.LongTensor',
   function() return torch.cumprod(torch.LongTensor(), x, 1) end)
print('ok')
