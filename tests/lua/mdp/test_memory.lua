-- Memory stays flat over 1000 forked trainings of a ParallelFlow (threads and processes): the
-- master's Lua heap and resident size, and the process workers' resident size.
-- Usage: th test_memory.lua [trainings]
local H = dofile(debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') .. '/helpers.lua')
local mdp = require 'mdp'
local scheduler = require 'scheduler'
local paths = require 'paths'

local TRAININGS = tonumber(arg and arg[1]) or 1000

local function rss_kb(pid)
   local f = io.open('/proc/' .. pid .. '/status')
   if not f then return 0 end
   local s = f:read('*a')
   f:close()
   return tonumber(s:match('VmRSS:%s*(%d+)')) or 0
end

local function children()
   local out = {}
   for tid in paths.iterdirs('/proc/self/task') do
      local f = io.open('/proc/self/task/' .. tid .. '/children')
      if f then
         for pid in f:read('*a'):gmatch('%d+') do out[#out + 1] = pid end
         f:close()
      end
   end
   return out
end

local function workers_kb()
   local sum = 0
   for _, pid in ipairs(children()) do sum = sum + rss_kb(pid) end
   return sum
end

local chunks = H.chunks(H.minstd(200, 10, 9), 50)

for _, kind in ipairs { 'threads', 'processes' } do
   local s = scheduler[kind](2)
   local function run(n)
      for _ = 1, n do
         local flow = mdp.parallel.ParallelFlow { mdp.nodes.PCANode { output_dim = 3 }, mdp.nodes.SFANode { output_dim = 2 } }
         flow:train({ chunks, chunks }, s)
      end
      collectgarbage()
      collectgarbage()
   end
   local t = torch.Timer()
   run(100)
   local lua0, rss0, w0 = collectgarbage('count'), rss_kb('self'), workers_kb()
   run(TRAININGS)
   local lua1, rss1, w1 = collectgarbage('count'), rss_kb('self'), workers_kb()
   s:shutdown()
   print(('%-9s %d trainings in %.2fs: Lua heap %+.0f KB, master RSS %+d KB, workers RSS %+d KB'):format(
      kind, TRAININGS, t:time().real, lua1 - lua0, rss1 - rss0, w1 - w0))
   assert(lua1 - lua0 < 2048, 'the Lua heap grows')
   assert(rss1 - rss0 < 16384, 'the resident size grows')
   assert(w1 - w0 < 16384, 'the workers grow')
end
print('ok')
