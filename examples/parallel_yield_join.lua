-- parallel_yield_join.lua: yield/join as a rendezvous. Each worker loops on parallel.yield(), which
-- blocks until the parent joins that worker; the string given to join is what yield returns, and
-- 'break' tells the worker to leave its loop. The parent steps the workers one at a time, then one
-- of them alone, then all together, and finally waits for them with sync.
--
-- Run:  th examples/parallel_yield_join.lua

require 'parallel'

local function worker()
   local steps = 0
   while true do
      local m = parallel.yield() -- blocks until the parent's join
      if m == 'break' then break end
      steps = steps + 1
      parallel.print(string.format('step %d, the parent said %q', steps, m))
      parallel.parent:send(steps)
   end
   parallel.print('leaving after ' .. steps .. ' steps')
end

local function parent()
   local workers = parallel.nfork(3)
   workers:exec(worker)

   -- One worker at a time: only the joined worker moves, the others stay blocked in yield.
   for round = 1, 2 do
      for i, w in ipairs(workers) do
         w:join('round ' .. round .. ', your turn')
         local steps = w:receive()
         assert(steps == round, 'worker ' .. i .. ' is at step ' .. tostring(steps))
      end
   end

   -- Only the first worker takes an extra step.
   workers[1]:join('just you')
   parallel.print('worker 1 is at step ' .. workers[1]:receive())

   -- All of them at once: a list join, then a list receive (keyed like the list).
   workers:join('everyone')
   local steps = workers:receive()
   for i = 1, #workers do
      parallel.print(string.format('worker %d (child id %d) is at step %d', i, workers[i].id, steps[i]))
   end
   assert(steps[1] == 4 and steps[2] == 3 and steps[3] == 3)

   -- Stop the loops, then wait for the code to finish and the processes to end.
   workers:join('break')
   workers:sync()
   parallel.print('children left: ' .. parallel.nchildren)
end

local ok, err = pcall(parent)
if not ok then print(err) end
parallel.close()
if not ok then os.exit(1) end
