-- Tensors copied under threads.serialize (the default), shared under threads.sharedserialize.
local threads = require 'threads'

local function roundtrip(name)
   threads.Threads.serialization(name)
   assert(threads.Threads.serialization() == name)
   local pool = threads.Threads(2)
   local x = torch.zeros(5)
   local back
   pool:addjob(function() x:add(1); return x end, function(y) back = y end)
   pool:synchronize()
   pool:terminate()
   return x, back
end

-- Default: the job works on its own copy, and its result is a copy too.
local x, back = roundtrip('threads.serialize')
assert(x:sum() == 0, 'the job changed the caller tensor under threads.serialize')
assert(back:sum() == 5)
assert(torch.pointer(back:storage()) ~= torch.pointer(x:storage()))

-- Shared: the job changes the caller's tensor, and gets it back as the same storage.
x, back = roundtrip('threads.sharedserialize')
assert(x:sum() == 5, 'the job did not change the caller tensor under threads.sharedserialize')
assert(torch.pointer(back:storage()) == torch.pointer(x:storage()))

-- Storages and tensors in tables, and two views of one storage stay one storage.
local pool = threads.Threads(2)
local big = torch.FloatTensor(4, 4):fill(1)
local views = { big:select(1, 1), big:select(1, 2), s = torch.FloatStorage(3):fill(2) }
pool:addjob(function()
   views[1]:fill(7)
   torch.FloatTensor(views.s):add(1)
   return torch.pointer(views[1]:storage()) == torch.pointer(views[2]:storage())
end, function(same) assert(same) end)
pool:synchronize()
pool:terminate()
assert(big[1][1] == 7 and views.s[1] == 3)
threads.Threads.serialization('threads.serialize')

-- The serializers as modules.
local ser = require 'threads.serialize'
local t = torch.range(1, 4)
local copy = ser.load(ser.save({ t = t, s = 'a' }))
assert(copy.s == 'a' and copy.t:equal(t))
copy.t:zero()
assert(t:sum() == 10)
local shared = require 'threads.sharedserialize'
local same = shared.load(shared.save({ t = t }))
same.t:zero()
assert(t:sum() == 0)

local ok, err = pcall(threads.Threads.serialization, 'no.such.module')
assert(not ok and err:find("unknown serialization 'no.such.module'"), err)
print('ok')
