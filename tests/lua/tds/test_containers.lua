-- tds.Hash, tds.Vec and tds.AtomicCounter: the API of torch/tds's README, its printing, and the
-- errors of bad keys and values.
local tds = require 'tds'

-- Hash: every element type as key and value; nil removes; # counts pairs.
local h = tds.Hash()
local t = torch.range(1, 3)
h.a, h[2], h[true], h[2.5], h.t = 1, 'two', false, 'x', t
h[t] = 'tensor key'
assert(h.a == 1 and h[2] == 'two' and h[true] == false and h[2.5] == 'x')
assert(torch.type(h.t) == 'torch.DoubleTensor' and h.t:sum() == 6)
assert(h[t] == 'tensor key', 'a tensor finds the entry it was stored under')
assert(h['2'] == nil, 'the string "2" is not the number 2')
assert(#h == 6)
h[-0] = 'zero'
assert(h[0] == 'zero', '0 and -0 are one key')
h[0], h.a = nil, nil
assert(#h == 5 and h.a == nil)

-- pairs walks keys in the order they were first stored; removing during the walk is allowed.
local o = tds.Hash()
for i = 1, 100 do o['k' .. i] = i end
local seen, n = {}, 0
for k, v in pairs(o) do
   n = n + 1
   assert(k == 'k' .. n and v == n)
   if v % 2 == 0 then o[k] = nil end
   seen[k] = true
end
assert(n == 100 and #o == 50 and o.k3 == 3 and o.k4 == nil)

-- A table converts recursively: number keys only make a Vec, others a Hash.
local c = tds.Hash({ a = { 1, 2, 3 }, b = { x = 1 } })
assert(torch.type(c.a) == 'tds.Vec' and #c.a == 3 and torch.type(c.b) == 'tds.Hash' and c.b.x == 1)
assert(c.a == c.a, 'a container fetched twice is the same container')

-- Vec: nils are elements, not holes; insert and remove shift; resize pads with nil.
local v = tds.Vec(4, 5, torch.rand(3), nil, 'hello world')
assert(#v == 5 and v[1] == 4 and v[4] == nil and v[5] == 'hello world')
v[8] = true
assert(#v == 8 and v[7] == nil and v[8] == true)
v:insert(1, 'first')
v:insert('last')
assert(#v == 10 and v[1] == 'first' and v[2] == 4 and v[10] == 'last')
v:remove()
v:remove(1)
assert(#v == 8 and v[1] == 4)
v:resize(2)
assert(#v == 2 and v[2] == 5)
local count = 0
for i, x in ipairs(v) do count = count + 1; assert(x == v[i]) end
assert(count == 2)

local s = tds.Vec(5, 3, 9, 1)
s:sort()
assert(s:concat(',') == '1,3,5,9')
s:sort(function(a, b) return a > b end)
assert(s:concat(',') == '9,5,3,1')
assert(s:concat('-', 2, 3) == '5-3')
assert(s:concatstorage(','):string() == '9,5,3,1')
local tv = tds.Vec(torch.Tensor{3}, torch.Tensor{1}, torch.Tensor{2})
local first = tv[2]
tv:sort(function(a, b) return a[1] < b[1] end)
assert(tv[1][1] == 1 and tv[3][1] == 3)
first[1] = 10
assert(tv[1][1] == 10, 'sorting moves the tensors themselves')

-- AtomicCounter, as tds's test_atomic.lua checks it.
local a = tds.AtomicCounter()
assert(a:get() == 0 and a:inc() == 0 and a:get() == 1 and a:inc() == 1 and a:get() == 2)
a:set(100)
assert(a:get() == 100 and tostring(a) == 'tds.AtomicCounter=100')

-- Printing, as the original's README shows it.
local d = tds.Vec(4, 5, tds.Hash(), 'hello world')
d[3].foo = 'bar'
d[3].stuff = tds.Vec('how', 'are')
local expected = [[
tds.Vec[4]{
    1 : 4
    2 : 5
    3 : tds.Hash[2]{
        foo   : bar
        stuff : tds.Vec[2]{
                    1 : how
                    2 : are
                }
        }
    4 : hello world
}]]
assert(tostring(d) == expected, tostring(d))

-- Errors name the function and are placed at the caller's line.
local function fails(f, pattern)
   local ok, err = pcall(f)
   assert(not ok, 'expected an error matching ' .. pattern)
   assert(tostring(err):find(pattern), tostring(err))
   assert(tostring(err):find('test_containers.lua:%d+:') or not tostring(err):find('luatorch'), tostring(err))
end
fails(function() h[nil] = 1 end, 'tds.Hash.__newindex: hash index is nil')
fails(function() h[0 / 0] = 1 end, 'hash index is NaN')
fails(function() h.x = {} end, 'unsupported key/value type <table>')
fails(function() h.x = print end, 'unsupported key/value type <function>')
fails(function() return v[0] end, 'positive number expected as key')
fails(function() v[1.5] = 1 end, 'positive number expected as key')
fails(function() v.x = 1 end, 'positive number expected as key')
fails(function() return v.nosuch end, 'invalid key %(number%) or method name')
fails(function() v:insert() end, '%[key%] value expected')
fails(function() v:resize(-1) end, 'size must be a positive number')
fails(function() v:remove(99) end, 'out of range')
fails(function() return a.nosuch end, 'no such method')
fails(function() tds.Hash(1) end, 'lua table or nothing expected')
fails(function() tds.Vec({ a = 1 }) end, 'lua table with number keys expected')
fails(function() s:sort('<') end, 'a Lua comparison function expected')

print('ok')
