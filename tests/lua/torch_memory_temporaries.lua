-- Temporaries whose memory Lua cannot see must still be collected: 60 results of 40 MB each
-- (2.4 GB in all) may not pile up.
local a = torch.FloatTensor(10000000):fill(1)
for _ = 1, 60 do
   local c = torch.add(a, a)
   assert(c[1] == 2)
end
local status = io.open('/proc/self/status'):read('*a')
local peak_kb = tonumber(status:match('VmHWM:%s*(%d+) kB'))
assert(peak_kb < 1200 * 1024, 'peak resident memory ' .. peak_kb .. ' kB')
print('peak kB', peak_kb)
