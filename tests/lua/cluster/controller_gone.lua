-- A client whose controller goes away while it waits (the test kills or stops the controller
-- once this script says 'waiting'). arg[1]: the profile.
local cluster = require 'cluster'
local c = cluster.client(arg[1])
c:wait_for_engines(2, 30)
local lbv = c:load_balanced_view()
-- Finished before the controller goes: still readable after.
local before = lbv:map(function(x) return x * 10 end, { 1, 2, 3 }, { block = false })
assert(before:wait(30), 'the first map finishes')
-- Each task carries 1 MiB, so the client has task segments in flight.
local big = torch.FloatTensor(256 * 1024):fill(1)
local list = {}
for i = 1, 40 do
   list[i] = i
end
local ar = lbv:map(function(x)
   require('sys').sleep(3)
   return big:sum() + x
end, list, { block = false })
io.write('waiting\n')
io.flush()
local t0 = require('sys').clock()
local ok, err = pcall(function()
   return ar:get(60)
end)
print('get', ok, err)
print(string.format('noticed within %.2f s', require('sys').clock() - t0))
assert(not ok, 'the wait fails')
assert(err:match("^cluster%.LoadBalancedView%.map: the controller of cluster '" .. arg[1] .. "' %(pid %d+%) "), err)
assert(err:match('%d+ of 40 tasks had finished'), err)
-- What was done stays readable.
local r = before:get()
assert(r[1] == 10 and r[2] == 20 and r[3] == 30, 'the earlier results')
assert(ar:progress() < 40)
-- Every other wait fails at once, naming the controller.
for _, call in ipairs {
   function() return c:ids() end,
   function() return c:status() end,
   function() return c:wait_for_engines(1, 5) end,
   function() return lbv:apply(function() return 1 end) end,
} do
   local ok2, e2 = pcall(call)
   assert(not ok2 and e2:match("the controller of cluster '" .. arg[1] .. "'"), tostring(e2))
end
print('gone', c._c:gone())
c:close()
print('ok')
