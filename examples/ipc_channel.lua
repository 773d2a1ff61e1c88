-- ipc_channel.lua: producers and consumers over one ipc.channel. Producers write items until
-- they are done; the main thread closes the channel once every producer finished; consumers
-- read until the channel says DRAINED (closed and empty).
--
-- Run:  th examples/ipc_channel.lua [producers] [consumers] [items]   (defaults: 2, 3, 1000)

local ipc = require 'libipc'

local nproducers = tonumber(arg[1]) or 2
local nconsumers = tonumber(arg[2]) or 3
local nitems = tonumber(arg[3]) or 1000

local c = ipc.channel()

local consumers = ipc.map(nconsumers, function(c)
   local ipc = require 'libipc'
   local sum, n = 0, 0
   while true do
      local status, item = c:read()
      if status == ipc.channel.DRAINED then break end
      sum, n = sum + item, n + 1
   end
   return { sum = sum, n = n }
end, c)

local producers = ipc.map(nproducers, function(c, nitems, mapid)
   for i = 1, nitems do
      c:write(mapid * 1000000 + i)
   end
end, c, nitems)
producers:join()
c:close()

local total, count = 0, 0
for i, r in ipairs({ consumers:join() }) do
   print(string.format('consumer %d read %d items', i, r.n))
   total, count = total + r.sum, count + r.n
end
local expected = 0
for p = 1, nproducers do
   expected = expected + p * 1000000 * nitems + nitems * (nitems + 1) / 2
end
print(string.format('%d items, sum %.0f (expected %.0f)', count, total, expected))
