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
-- The tasks an engine had been handed but not started when it died go back to the queue, even
-- without retries: only the one it was running is lost. Task 5 sleeps first, so its engine
-- holds the next task by the time it dies.
c:wait_for_engines(2, 30)
local function dies_at_five(x)
   if x == 5 then
      require('sys').sleep(0.5)
      os.exit(3)
   end
   return x
end
local ar = lbv:map(dies_at_five, list, { block = false })
ok, err = pcall(ar.get, ar, 60)
assert(not ok and err:match('task 5 could not finish'), err)
for i, m in ipairs(ar.metadata) do
   if i == 5 then
      assert(m.status == 'lost', 'task 5 is lost')
   else
      assert(m.status == 'ok', 'task ' .. i .. ' ran: ' .. m.status)
   end
end
-- A task's time limit counts from when its engine began it, not from when it was handed over
-- behind a slower one: eight 0.3 s tasks on two engines, each well within its 0.5 s limit.
c:wait_for_engines(2, 30)
local slow = lbv:map(function(x)
   require('sys').sleep(0.3)
   return x
end, { 1, 2, 3, 4, 5, 6, 7, 8 }, { timeout = 0.5 })
assert(#slow == 8 and slow[8] == 8)
c:close()
print('ok')
