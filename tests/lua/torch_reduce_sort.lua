-- sort, topk, kthvalue, median and mode: values with 1-based LongTensor indices along a dimension
-- (the last by default), stability, NaN, every type, strided inputs, long lanes, errors.
local H = dofile('torch_reduce_helpers.lua')
local same, fails = H.same, H.fails
local nan, inf = 0 / 0, math.huge

---------------------------------------------------------------------------------------------------
-- sort
local x = torch.Tensor({ 3, 1, 2 })
local v, i = x:sort()
same(v, { 1, 2, 3 }, 'torch.DoubleTensor')
same(i, { 2, 3, 1 }, 'torch.LongTensor')
v, i = x:sort(true)
same(v, { 3, 2, 1 })
same(i, { 1, 3, 2 })
v, i = torch.sort(x, 1, true)
same(v, { 3, 2, 1 })
same(i, { 1, 3, 2 })
same(x, { 3, 1, 2 })
local m = torch.Tensor({ { 3, 1, 2 }, { 9, 7, 8 }, { 0, 5, 4 } })
v, i = m:sort()
same(v, { { 1, 2, 3 }, { 7, 8, 9 }, { 0, 4, 5 } })
same(i, { { 2, 3, 1 }, { 2, 3, 1 }, { 1, 3, 2 } })
v, i = torch.sort(m, 1, true)
same(v, { { 9, 7, 8 }, { 3, 5, 4 }, { 0, 1, 2 } })
same(i, { { 2, 2, 2 }, { 1, 3, 3 }, { 3, 1, 1 } })
v, i = m:t():sort(2)
same(v, { { 0, 3, 9 }, { 1, 5, 7 }, { 2, 4, 8 } })
same(i, { { 3, 1, 2 }, { 1, 3, 2 }, { 1, 3, 2 } })
-- Stable: equal values keep their order, ascending and descending.
v, i = torch.Tensor({ 2, 1, 2, 1, 2 }):sort()
same(v, { 1, 1, 2, 2, 2 })
same(i, { 2, 4, 1, 3, 5 })
v, i = torch.Tensor({ 2, 1, 2, 1, 2 }):sort(true)
same(v, { 2, 2, 2, 1, 1 })
same(i, { 1, 3, 5, 2, 4 })
-- NaN above every number; -0 equals 0; infinities in place.
v, i = torch.Tensor({ 3, nan, 1, nan, 2 }):sort()
same(v, { 1, 2, 3, nan, nan })
same(i, { 3, 5, 1, 2, 4 })
v, i = torch.Tensor({ 3, nan, 1, nan, 2 }):sort(true)
same(v, { nan, nan, 3, 2, 1 })
same(i, { 2, 4, 1, 5, 3 })
v, i = torch.Tensor({ 0, -0.0, -1 }):sort()
same(i, { 3, 1, 2 })
assert(1 / v[3] == -inf)
v, i = torch.FloatTensor({ inf, -inf, 0, -2.5 }):sort()
same(v, { -inf, -2.5, 0, inf }, 'torch.FloatTensor')
same(i, { 2, 4, 3, 1 })
-- Results into given tensors.
local rv, ri = torch.Tensor(), torch.LongTensor()
local a, b = torch.sort(rv, ri, x)
assert(H.is(a, rv) and H.is(b, ri))
same(rv, { 1, 2, 3 })
same(ri, { 2, 3, 1 })
a, b = rv:sort(ri, m, 1, true)
assert(H.is(a, rv) and H.is(b, ri))
same(rv, { { 9, 7, 8 }, { 3, 5, 4 }, { 0, 1, 2 } })
a, b = torch.sort(ri, x, true)
assert(H.is(b, ri))
same(a, { 3, 2, 1 })
same(ri, { 1, 3, 2 })

---------------------------------------------------------------------------------------------------
-- topk: the k smallest by default (k = 1), the k largest with dir = true; returned sorted.
local t = torch.Tensor({ 5, 1, 4, 2, 3 })
v, i = t:topk(2)
same(v, { 1, 2 })
same(i, { 2, 4 })
v, i = t:topk(2, true)
same(v, { 5, 4 })
same(i, { 1, 3 })
v, i = t:topk()
same(v, { 1 })
same(i, { 2 })
v, i = torch.topk(t, 3, 1, true, true)
same(v, { 5, 4, 3 })
same(i, { 1, 3, 5 })
v, i = torch.topk(t, 3, 1, false, false)
same(v, { 1, 2, 3 })
same(i, { 2, 4, 5 })
v, i = t:topk(5)
same(v, { 1, 2, 3, 4, 5 })
same(i, { 2, 4, 5, 3, 1 })
v, i = m:topk(2)
same(v, { { 1, 2 }, { 7, 8 }, { 0, 4 } })
same(i, { { 2, 3 }, { 2, 3 }, { 1, 3 } })
v, i = m:topk(1, 1, true)
same(v, { { 9, 7, 8 } })
same(i, { { 2, 2, 2 } })
v, i = torch.Tensor({ 2, 1, 2, 1 }):topk(2)
same(i, { 2, 4 })
v, i = torch.Tensor({ 2, 1, 2, 1 }):topk(2, true)
same(i, { 1, 3 })
v, i = torch.Tensor({ 1, nan, 3 }):topk(1, true)
same(v, { nan })
same(i, { 2 })
rv, ri = torch.Tensor(), torch.LongTensor()
a, b = torch.topk(rv, ri, t, 2, true)
assert(H.is(a, rv) and H.is(b, ri))
same(rv, { 5, 4 })
same(ri, { 1, 3 })

---------------------------------------------------------------------------------------------------
-- kthvalue, median (the lower one) and mode: one element along the dimension, kept with size 1.
v, i = t:kthvalue(1)
same(v, { 1 })
same(i, { 2 })
v, i = torch.kthvalue(t, 3)
same(v, { 3 })
same(i, { 5 })
v, i = t:kthvalue(5, 1)
same(v, { 5 })
same(i, { 1 })
v, i = m:kthvalue(2)
same(v, { { 2 }, { 8 }, { 4 } })
same(i, { { 3 }, { 3 }, { 3 } })
v, i = torch.kthvalue(m, 3, 1)
same(v, { { 9, 7, 8 } })
same(i, { { 2, 2, 2 } })
v, i = torch.Tensor({ 2, 1, 2, 1 }):kthvalue(3)
same(v, { 2 })
same(i, { 1 })
rv, ri = torch.Tensor(), torch.LongTensor()
a, b = rv:kthvalue(ri, t, 2)
assert(H.is(a, rv) and H.is(b, ri))
same(rv, { 2 })
same(ri, { 4 })

v, i = t:median()
same(v, { 3 })
same(i, { 5 })
v, i = torch.median(torch.Tensor({ 4, 1, 3, 2 }))
same(v, { 2 })
same(i, { 4 })
v, i = m:median()
same(v, { { 2 }, { 8 }, { 4 } })
same(i, { { 3 }, { 3 }, { 3 } })
v, i = m:median(1)
same(v, { { 3, 5, 4 } })
same(i, { { 1, 3, 3 } })
v, i = torch.Tensor({ 5, 5, 1, 5 }):median()
same(v, { 5 })
same(i, { 1 })
a, b = torch.median(rv, ri, m, 1)
assert(H.is(a, rv) and H.is(b, ri))
same(rv, { { 3, 5, 4 } })

-- The most frequent value; on a tie the smallest; its index is its last position.
v, i = torch.Tensor({ 1, 2, 2, 3, 3, 3, 2 }):mode()
same(v, { 2 })
same(i, { 7 })
v, i = torch.Tensor({ 4, 4, 1 }):mode()
same(v, { 4 })
same(i, { 2 })
v, i = torch.Tensor({ 5 }):mode()
same(v, { 5 })
same(i, { 1 })
v, i = torch.Tensor({ { 1, 2 }, { 2, 2 }, { 1, 3 } }):mode(1)
same(v, { { 1, 2 } })
same(i, { { 3, 2 } })
a, b = torch.mode(rv, ri, torch.IntTensor({ 7, 7, 9 }):double())
same(rv, { 7 })
same(ri, { 2 })

---------------------------------------------------------------------------------------------------
-- Every type, every dimension, every kind of view, against plain Lua (a stable sort of pairs).
local function pairs_sorted(l, desc)
   local p = {}
   for k, val in ipairs(l) do p[k] = { val, k } end
   table.sort(p, function(u, w)
      if u[1] ~= w[1] then
         if desc then return u[1] > w[1] end
         return u[1] < w[1]
      end
      return u[2] < w[2]
   end)
   return p
end
local function col(p, c, n)
   local out = {}
   for k = 1, n or #p do out[k] = p[k][c] end
   return out
end
local function lmode(l)
   local count = {}
   for _, val in ipairs(l) do count[val] = (count[val] or 0) + 1 end
   local best
   for val, c in pairs(count) do
      if best == nil or c > count[best] or (c == count[best] and val < best) then best = val end
   end
   local last
   for k, val in ipairs(l) do if val == best then last = k end end
   return last
end
for _, T in ipairs(H.types) do
   local base = H.random(T, 0, 6, 31, 3, 4, 10)
   for vname, tv in pairs(H.views(base)) do
      for d = 1, 3 do
         local what = T .. ' ' .. vname .. ' dim ' .. d
         local ty = tv:type()
         local sv, si = tv:sort(d)
         H.equal(sv, H.reference(tv, d, function(l) return col(pairs_sorted(l), 1) end):type(ty), what .. ' sort')
         H.equal(si, H.reference(tv, d, function(l) return col(pairs_sorted(l), 2) end):long(), what .. ' sort index')
         sv, si = torch.sort(tv, d, true)
         H.equal(si, H.reference(tv, d, function(l) return col(pairs_sorted(l, true), 2) end):long(), what .. ' sort desc')
         local k = math.min(3, tv:size(d))
         sv, si = tv:topk(k, d)
         H.equal(si, H.reference(tv, d, function(l) return col(pairs_sorted(l), 2, k) end):long(), what .. ' topk')
         sv, si = tv:topk(k, d, true)
         H.equal(sv, H.reference(tv, d, function(l) return col(pairs_sorted(l, true), 1, k) end):type(ty), what .. ' topk dir')
         H.equal(si, H.reference(tv, d, function(l) return col(pairs_sorted(l, true), 2, k) end):long(), what .. ' topk dir')
         sv, si = tv:kthvalue(2, d)
         H.equal(si, H.reference(tv, d, function(l) return pairs_sorted(l)[2][2] end):long(), what .. ' kthvalue')
         sv, si = tv:median(d)
         H.equal(si, H.reference(tv, d, function(l) return pairs_sorted(l)[math.floor((#l + 1) / 2)][2] end):long(),
            what .. ' median')
         sv, si = tv:mode(d)
         H.equal(si, H.reference(tv, d, lmode):long(), what .. ' mode index')
         H.equal(sv, H.reference(tv, d, function(l) return l[lmode(l)] end):type(ty), what .. ' mode')
      end
   end
end

-- Long lanes (sorted by radix): sorted, stable, and the indices point at the values.
local function check_sorted(tv, desc, what)
   local sv, si = tv:sort(desc)
   local n = tv:size(1)
   local xs, vs, is = tv:storage():totable(), sv:storage():totable(), si:storage():totable()
   for k = 1, n do
      assert(xs[is[k]] == vs[k] or (vs[k] ~= vs[k] and xs[is[k]] ~= xs[is[k]]), what .. ': index ' .. k)
      if k > 1 then
         local p, q = vs[k - 1], vs[k]
         local ordered
         if p ~= p then
            ordered = desc or q ~= q
         elseif q ~= q then
            ordered = not desc
         else
            ordered = (desc and p > q) or (not desc and p < q) or (p == q and is[k - 1] < is[k])
         end
         assert(ordered, string.format('%s: position %d (%g, %g)', what, k, p, q))
      end
   end
end
local ranges = { Byte = { 0, 255 }, Char = { -128, 127 }, Short = { -1000, 1000 }, Int = { -100000, 100000 },
   Long = { -100000, 100000 }, Float = { -5000, 5000 }, Double = { -5000, 5000 } }
for _, T in ipairs(H.types) do
   local tv = H.random(T, ranges[T][1], ranges[T][2], 37, 70000)
   if T == 'Long' or T == 'Float' or T == 'Double' then
      local st = tv:storage():totable()
      for k = 1, 70000 do
         if T == 'Long' then st[k] = st[k] * 2 ^ 30 else st[k] = st[k] / 8 end
      end
      if T ~= 'Long' then
         for k = 1, 70000, 997 do st[k] = nan end
      end
      tv = torch[T .. 'Tensor'](st)
   end
   check_sorted(tv, false, T .. ' long ascending')
   check_sorted(tv, true, T .. ' long descending')
   local kv, ki = tv:topk(5, true)
   local sv = tv:sort(true)
   H.equal(kv, sv:narrow(1, 1, 5), T .. ' long topk')
   local mv = tv:median()
   H.equal(mv, tv:sort():narrow(1, 35000, 1), T .. ' long median')
end

---------------------------------------------------------------------------------------------------
-- Errors.
fails('topk: k (0) out of range for a dimension of size 5', function() return t:topk(0) end)
fails('topk: k (6) out of range for a dimension of size 5', function() return t:topk(6) end)
fails('kthvalue: k (6) out of range for a dimension of size 5', function() return t:kthvalue(6) end)
fails('kthvalue: k (0) out of range for a dimension of size 3', function() return m:kthvalue(0, 1) end)
fails('kthvalue: k must be an integer, got 1.5', function() return t:kthvalue(1.5) end)
fails('kthvalue: invalid arguments: DoubleTensor\nexpected arguments: [*DoubleTensor*] [*LongTensor*] DoubleTensor number [index]',
   function() return t:kthvalue() end)
fails('sort: dimension 3 out of range of 2D tensor', function() return m:sort(3) end)
fails('topk: dimension 2 out of range of 1D tensor', function() return t:topk(1, 2) end)
fails('median: dimension 0 out of range of 2D tensor', function() return m:median(0) end)
fails('mode: dimension 3 out of range of 2D tensor', function() return torch.mode(m, 3) end)
fails('sort: empty tensor', function() return torch.Tensor():sort() end)
fails('topk: empty tensor', function() return torch.Tensor():topk() end)
fails('median: empty tensor', function() return torch.Tensor():median() end)
fails('mode: empty tensor', function() return torch.Tensor():mode() end)
fails('sort: the indices result must be a torch.LongTensor, got a torch.IntTensor',
   function() return torch.sort(torch.Tensor(), torch.IntTensor(), x) end)
fails('sort: invalid arguments: DoubleTensor string\nexpected arguments: [*DoubleTensor*] [*LongTensor*] DoubleTensor [index] [boolean]',
   function() return x:sort('up') end)
fails('topk: invalid arguments: DoubleTensor number number number\n'
   .. 'expected arguments: [*DoubleTensor*] [*LongTensor*] DoubleTensor [number] [index] [boolean] [boolean]',
   function() return t:topk(1, 1, 1) end)
print('ok')
