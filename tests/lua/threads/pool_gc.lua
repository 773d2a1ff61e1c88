-- No thread outlives its pool: terminate joins them, and a pool that is only collected ends its
-- threads too. Counts the process's threads in /proc.
local sys = require 'sys'
local threads = require 'threads'

local function nthreads()
   local f = assert(io.open('/proc/self/status'))
   local s = f:read('*a')
   f:close()
   return tonumber(s:match('Threads:%s*(%d+)'))
end

local base = nthreads()
local pool = threads.Threads(4)
assert(nthreads() == base + 4)
pool:terminate()
assert(nthreads() == base, nthreads() .. ' threads after terminate, ' .. base .. ' before')

-- Pools dropped without terminate, jobs still open: their end callbacks run at collection.
local ran = 0
for _ = 1, 20 do
   local p = threads.Threads(2)
   p:addjob(function() return 1 end, function(v) ran = ran + v end)
end
collectgarbage()
collectgarbage()
assert(ran == 20, ran)
for _ = 1, 6000 do
   if nthreads() == base then break end
   sys.sleep(0.01)
end
assert(nthreads() == base, nthreads() .. ' threads left, ' .. base .. ' before')
print('ok')
