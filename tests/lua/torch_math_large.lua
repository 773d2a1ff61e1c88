-- Long inputs (the vectorised loops, their tails, and many runs of a strided walk) give the same
-- values as the elements computed one by one.
local H = dofile('torch_test_helpers.lua')

local n = 1000003
local function av(i) return i % 1000 end
local function bv(i) return (i * 7) % 1000 - 500 end
local a = torch.range(1, n):fmod(1000):float()
local b = torch.range(1, n):mul(7):fmod(1000):add(-500):float()
for i = 1, n, 9973 do assert(a[i] == av(i) and b[i] == bv(i)) end
local sum, prod = torch.add(a, b), torch.cmul(a, b)
local scaled = torch.add(a, 0.5, b)
for i = 1, n, 997 do
   assert(sum[i] == av(i) + bv(i))
   assert(prod[i] == av(i) * bv(i))
   assert(scaled[i] == av(i) + 0.5 * bv(i))
end
assert(sum[n] == av(n) + bv(n) and prod[n] == av(n) * bv(n))
assert(torch.equal(a:clone():add(b), sum))
assert(torch.equal(a:clone():cmul(b), prod))
local r = torch.FloatTensor()
r:add(a, b)
assert(torch.equal(r, sum))
-- In place on itself.
local twice = a:clone()
twice:add(twice)
assert(torch.equal(twice, torch.mul(a, 2)))
assert(torch.equal(a:lt(b), b:gt(a)))

-- A transposed 1000x1000 against its contiguous copy.
local m = a:narrow(1, 1, 1000000):view(1000, 1000)
local mt = m:t()
local got = torch.add(mt, b:narrow(1, 1, 1000000):view(1000, 1000))
local want = torch.add(mt:clone(), b:narrow(1, 1, 1000000):view(1000, 1000))
assert(torch.equal(got, want))
assert(got[17][900] == m[900][17] + b[16 * 1000 + 900])
local d = H.seq('Double', 300, 400)
assert(torch.equal(torch.cmul(d:t(), d:t()), torch.cmul(d, d):t()))

print('ok')
