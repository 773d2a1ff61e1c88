-- Writes the fuzzer's seed inputs: th fuzz/make_seeds.lua (from the repository root).
-- Each seed is one flag byte (bit 0 ASCII, bit 1 4-byte longs, bit 2 references off, bit 3 quiet,
-- bit 4 write back) followed by a .t7 file.
local out = 'fuzz/seeds/t7_read/'
local function save(name, flags, bytes)
   local f = assert(io.open(out .. name, 'wb'))
   f:write(string.char(flags), bytes)
   f:close()
end

for file in io.popen('ls tests/fixtures/t7/*.t7'):lines() do
   local f = assert(io.open(file, 'rb'))
   save('fixture_' .. file:match('([^/]+)%.t7$'), 16, f:read('*a'))
   f:close()
end

local Point = torch.class('A')
local up = { 1 }
local shared = torch.DoubleTensor(2, 3):fill(0.5)
local objects = {
   table = { 1, 'two', { three = true }, [1.5] = false },
   tensors = { shared, shared:t(), torch.ByteTensor({ 1, 2 }), torch.LongTensor(), torch.IntStorage({ 7 }) },
   fn = function(x) return x + up[1] end,
   class = (function() local a = A(); a.a = a; a.t = torch.FloatTensor({ 1 }); return a end)(),
}
local cyc = { name = 'cyc' }
cyc.self = cyc
objects.cycle = cyc
for name, obj in pairs(objects) do
   save(name .. '_binary', 16, torch.serialize(obj))
   save(name .. '_ascii', 17, torch.serialize(obj, 'ascii'))
   local m = torch.MemoryFile():binary():longSize(4)
   m:writeObject(obj)
   save(name .. '_b32', 2, m:storage():string():sub(1, -2))
   m:close()
end
print('seeds written')
