-- An engine that dies during a map: without retries the map fails naming the engine; with
-- retries its tasks run again elsewhere. arg[1]: the profile; arg[2]: a scratch directory.
local cluster = require 'cluster'
local c = cluster.client(arg[1])
c:wait_for_engines(2, 30)
local lbv = c:load_balanced_view()
local marker = arg[2] .. '/died-once'
local function dies_once(x)
   if x == 5 then
      local f = io.open(marker, 'r')
      if not f then
         io.open(marker, 'w'):close()
         os.exit(3)
      end
      f:close()
   end
   return x
end
local list = {}
for i = 1, 20 do
   list[i] = i
end
local ok, err = pcall(lbv.map, lbv, dies_once, list)
assert(not ok and err:match('task 5 could not finish on engine %d+: engine %d+ %(pid %d+ on .-%) died'), err)
-- The dead engine is replaced; the cluster goes on.
c:wait_for_engines(2, 30)
os.remove(marker)
local r = lbv:map(dies_once, list, { retries = 1 })
for i = 1, 20 do
   assert(r[i] == i, 'every task ran, the lost one again')
end
c:wait_for_engines(2, 30)
assert(c:status().restarts == 2, 'two engines were started again')
-- A task past its time limit fails, and its engine is replaced.
ok, err = pcall(function()
   return lbv:apply_with({ timeout = 0.3 }, function() while true do end end)
end)
assert(not ok and err:match('ran past its time limit %(0.3 s%)'), err)
c:wait_for_engines(2, 30)
assert(lbv:apply(function() return 'fine' end) == 'fine')
c:close()
print('ok')
