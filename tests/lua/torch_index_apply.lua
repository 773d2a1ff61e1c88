-- apply, map, map2: logical order, write-back through non-contiguous views, Torch's rule that
-- only a number result replaces the element, and the errors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or '') .. 'torch_test_helpers.lua')
local same, fails = H.same, H.fails

-- apply visits elements in logical order and writes back number results
local x = torch.Tensor{{1, 2}, {3, 4}}
local seen = {}
assert(x:apply(function(v) seen[#seen + 1] = v; return v * 2 end) == x)
assert(table.concat(seen, ',') == '1,2,3,4')
same(x, {{2, 4}, {6, 8}})
-- nil (or any non-number) leaves the element; a numeric string counts as a number
x:apply(function(v) if v > 4 then return 0 end end)
same(x, {{2, 4}, {0, 0}})
x:apply(function() return true end)
x:apply(function() return {} end)
same(x, {{2, 4}, {0, 0}})
x:apply(function() return '5' end)
same(x, {{5, 5}, {5, 5}})
-- non-contiguous: the view's logical order, written through to the base
local y = torch.Tensor{{1, 2}, {3, 4}}
local order = {}
y:t():apply(function(v) order[#order + 1] = v; return v + 10 end)
assert(table.concat(order, ',') == '1,3,2,4', table.concat(order, ','))
same(y, {{11, 12}, {13, 14}})
local col = torch.zeros(3, 3):select(2, 2)
local i = 0
col:apply(function() i = i + 1; return i end)
same(col, {1, 2, 3})
-- values are converted as C casts do
same(torch.IntTensor{1, 2}:apply(function(v) return v + 0.7 end), {1, 2}, 'torch.IntTensor')
same(torch.ByteTensor{1}:apply(function(v) return 300 end), {44}, 'torch.ByteTensor')
-- an empty tensor calls nothing
torch.Tensor():apply(function() error('called') end)
-- the function may read the tensor it walks
local s = torch.Tensor{1, 2, 3}
s:apply(function(v) return v + s[1] end)
same(s, {2, 4, 5})

fails('apply: bad argument #2 (function expected, got nil)', function() x:apply() end)
fails('apply: bad argument #2 (function expected, got number)', function() x:apply(3) end)
-- errors raised by the function pass through unchanged
fails('boom', function() x:apply(function() error('boom', 0) end) end)
local ok, err = pcall(function() x:apply(function() error('boom') end) end)
assert(not ok and err:match('^[^\n]*torch_index_apply%.lua:%d+: boom$'), err)
fails('narrow: dimension 9 out of range of 2D tensor', function() x:apply(function() x:narrow(9, 1, 1) end) end)

-- map: f(self element, other element), in logical order of both
local a = torch.Tensor{1, 2, 3}
local b = torch.Tensor{10, 20, 30}
assert(a:map(b, function(p, q) return p + q end) == a)
same(a, {11, 22, 33})
same(b, {10, 20, 30})
-- same element count is enough; both may be non-contiguous
local m = torch.Tensor{{1, 2}, {3, 4}}
local pairs_seen = {}
m:t():map(torch.Tensor{5, 6, 7, 8}, function(p, q) pairs_seen[#pairs_seen + 1] = p .. ':' .. q; return p * q end)
assert(table.concat(pairs_seen, ',') == '1:5,3:6,2:7,4:8', table.concat(pairs_seen, ','))
same(m, {{5, 14}, {18, 32}})
local mt = torch.Tensor{{1, 2}, {3, 4}}
local dst = torch.zeros(4)
dst:map(mt:t(), function(_, q) return q end)
same(dst, {1, 3, 2, 4})
dst:map(mt, function() end)
same(dst, {1, 3, 2, 4})

-- map2: f(self, a, b)
local t = torch.zeros(2, 2)
local p, q = torch.Tensor{{1, 2}, {3, 4}}, torch.Tensor{{10, 20}, {30, 40}}
assert(t:map2(p, q:t(), function(_, u, v) return u * 100 + v end) == t)
same(t, {{110, 230}, {320, 440}})
same(torch.LongTensor{1, 2}:map2(torch.LongTensor{3, 4}, torch.LongTensor{5, 6}, function(s1, u, v) return s1 + u + v end),
   {9, 12}, 'torch.LongTensor')

fails('boom', function() a:map(b, function() error('boom', 0) end) end)
fails('map: inconsistent tensor size (the tensor has 3 elements, argument #2 has 4)',
   function() a:map(torch.Tensor(4), function() end) end)
fails('map: bad argument #2 (torch.DoubleTensor expected, got torch.FloatTensor)',
   function() a:map(torch.FloatTensor(3), function() end) end)
fails('map: bad argument #2 (torch.DoubleTensor expected, got nil)', function() a:map() end)
fails('map: bad argument #3 (function expected, got nil)', function() a:map(b) end)
fails('map2: inconsistent tensor size (the tensor has 3 elements, argument #3 has 2)',
   function() a:map2(b, torch.Tensor(2), function() end) end)
fails('map2: bad argument #3 (torch.DoubleTensor expected, got torch.IntTensor)',
   function() a:map2(b, torch.IntTensor(3), function() end) end)
fails('map2: bad argument #4 (function expected, got string)', function() a:map2(b, b, 'f') end)

print('ok')
