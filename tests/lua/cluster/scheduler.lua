-- scheduler.cluster: the scheduler's API on the engines of a running cluster (arg[1]: the
-- profile; arg[2]: a scratch directory): results in order, reused callables, map, the
-- containers, errors naming the task, init, an engine dying with and without retries, and
-- shutdown leaving the engines running.
local scheduler = require 'scheduler'
local profile, scratch = arg[1], arg[2]

require("cluster").client(profile):wait_for_engines(2, 30)
local s = scheduler.cluster(profile)
local square = function(x) return x * x end
for i = 1, 500 do s:add_task(i, i == 1 and square or nil) end
local r = s:get_results()
assert(#r == 500 and r[1] == 1 and r[500] == 250000, #r)
local add = function(t) return t.a + t.b end
local norm = function(x) return x:norm() end
for i = 1, 20 do
   s:add_task({ a = i, b = 1 }, add)
   s:add_task(torch.Tensor({ 3, 4 }) * i, norm)
end
r = s:get_results()
assert(r[1] == 2 and math.abs(r[40] - 100) < 1e-9)
local list = {}
for i = 1, 3000 do list[i] = i end
r = s:map(square, list)
assert(#r == 3000 and r[3000] == 9e6)
for i = 1, 10 do
   s:add_task(i, function(x) if x == 7 then error('task data ' .. x .. ' is bad') end return x end)
end
local ok, err = pcall(s.get_results, s)
assert(not ok and err:find('task 7 failed') and err:find('task data 7 is bad'), err)
s:shutdown()

-- Containers and init.
s = scheduler.cluster(profile, { results = function(acc, v) return acc + v end, initial = 0,
   init = function() offset = 1000 end })
for i = 1, 100 do s:add_task(i, function(x) return x + offset end) end
assert(s:get_results() == 100 * 1000 + 5050)
s:shutdown()

-- An engine that dies: its tasks fail naming it, or run again elsewhere with retries.
local marker = scratch .. '/scheduler-died'
local function dies_once(x)
   if x == 3 then
      local f = io.open(marker, 'r')
      if not f then
         io.open(marker, 'w'):close()
         os.exit(3)
      end
      f:close()
   end
   return x
end
s = scheduler.cluster(profile)
for i = 1, 5 do s:add_task(i, dies_once) end
ok, err = pcall(s.get_results, s)
assert(not ok and err:find('died'), err)
s:shutdown()
require('cluster').client(profile):wait_for_engines(2, 30)
os.remove(marker)
s = scheduler.cluster(profile, { retries = 1 })
for i = 1, 5 do s:add_task(i, dies_once) end
r = s:get_results()
assert(#r == 5 and r[3] == 3)
s:shutdown()

-- The engines outlive the schedulers.
local c = require('cluster').client(profile)
assert(#c:wait_for_engines(2, 30) == 2)
c:close()
print('ok')
