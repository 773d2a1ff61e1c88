-- torch serialization of tds containers both ways, and sharing through threads: by reference
-- under threads.sharedserialize, as copies under threads.serialize.
local tds = require 'tds'
local threads = require 'threads'

local d = tds.Vec(4, 5, torch.range(1, 3), nil, 'hello world', tds.Hash({ x = 1 }), tds.AtomicCounter())
d[7]:set(42)
d[6].nested = tds.Vec('a', 'b')
for _, mode in ipairs { 'binary', 'ascii' } do
   local f = torch.MemoryFile('rw')
   f[mode](f)
   f:writeObject(d)
   f:seek(1)
   local e = f:readObject()
   f:close()
   assert(torch.type(e) == 'tds.Vec' and #e == 7, mode)
   assert(e[1] == 4 and e[4] == nil and e[5] == 'hello world' and e[3]:sum() == 6)
   assert(torch.type(e[6]) == 'tds.Hash' and e[6].x == 1 and e[6].nested[2] == 'b')
   assert(torch.type(e[7]) == 'tds.AtomicCounter' and e[7]:get() == 42)
   assert(not (e == d), 'a loaded container is a new one')
end

local path = os.tmpname()
local h = tds.Hash()
for i = 1, 1000 do h['k' .. i] = i end
torch.save(path, h)
local back = torch.load(path)
os.remove(path)
assert(#back == 1000 and back.k500 == 500)

local shared = tds.Hash()
local counter = tds.AtomicCounter()
threads.Threads.serialization('threads.sharedserialize')
local pool = threads.Threads(2, function() require 'tds' end)
for i = 1, 20 do
   pool:addjob(function()
      shared['k' .. i] = i
      counter:inc()
   end)
end
pool:synchronize()
pool:terminate()
assert(#shared == 20 and counter:get() == 20, 'shared by reference: ' .. #shared)

local copied = tds.Hash()
threads.Threads.serialization('threads.serialize')
pool = threads.Threads(2, function() require 'tds' end)
for i = 1, 10 do
   pool:addjob(function()
      copied['k' .. i] = i
      return #copied
   end, function(n) assert(n == 1, 'each job has its own copy') end)
end
pool:synchronize()
pool:terminate()
assert(#copied == 0, 'copies under threads.serialize')

print('ok')
