-- Per-task overhead of the scheduler and of the threads pool, measured as
-- benches/scheduler_peers.py measures Python's pools (run them side by side):
--    th examples/bench_scheduler.lua [workers [empty_tasks [tensor_tasks [runs [reduce_tasks]]]]]
-- Prints NAME<TAB>SECONDS_PER_TASK, the median of `runs` runs, each measure after one untimed run
-- of the same work (the steady state, on both sides: here the JIT has compiled its traces, and
-- both sides' processes have their memory). empty: tasks returning their argument (an integer);
-- tensor: tasks summing a 100-element DoubleTensor; `map` lines hand the whole list at once
-- (s:map), as Pool.map does, the others add one task at a time. Then the resident memory before and after `reduce_tasks` tasks
-- folded into one sum (it must stay flat).
local scheduler = require 'scheduler'
local threads = require 'threads'

local workers = tonumber(arg[1]) or 2
local n_empty = tonumber(arg[2]) or 100000
local n_tensor = tonumber(arg[3]) or 10000
local runs = tonumber(arg[4]) or 3
local n_reduce = tonumber(arg[5]) or 1000000
torch.setnumthreads(1)

local function median(v)
   table.sort(v)
   return v[math.floor((#v + 1) / 2)]
end

local function timed(n, f)
   f()
   local per = {}
   for r = 1, runs do
      local t = torch.Timer()
      f()
      per[r] = t:time().real / n
   end
   return median(per)
end

local function rss()
   local f = io.open('/proc/self/statm')
   local _, res = f:read('*n', '*n')
   f:close()
   return res * 4096 / 2 ^ 20
end

local identity = function(x) return x end
local tsum = function(x) return x:sum() end
local tensors = {}
for i = 1, n_tensor do tensors[i] = torch.DoubleTensor(100):fill(i) end

for _, kind in ipairs({ 'threads', 'processes' }) do
   local s = scheduler[kind](workers)
   for i = 1, 1000 do s:add_task(i, identity) end
   s:get_results()
   print(('scheduler.%s empty\t%.3e'):format(kind, timed(n_empty, function()
      for i = 1, n_empty do s:add_task(i, identity) end
      assert(#s:get_results() == n_empty)
   end)))
   print(('scheduler.%s tensor\t%.3e'):format(kind, timed(n_tensor, function()
      for i = 1, n_tensor do s:add_task(tensors[i], tsum) end
      assert(#s:get_results() == n_tensor)
   end)))
   -- The whole list at once, as Pool.map takes it.
   local ints = {}
   for i = 1, n_empty do ints[i] = i end
   print(('scheduler.%s map empty\t%.3e'):format(kind, timed(n_empty, function()
      assert(#s:map(identity, ints) == n_empty)
   end)))
   print(('scheduler.%s map tensor\t%.3e'):format(kind, timed(n_tensor, function()
      assert(#s:map(tsum, tensors) == n_tensor)
   end)))
   s:shutdown()
end

-- The threads pool, one job per addjob as scripts use it.
local pool = threads.Threads(workers)
local njobs = math.min(n_empty, 20000)
print(('threads.Threads addjob empty\t%.3e'):format(timed(njobs, function()
   local done = 0
   for i = 1, njobs do
      pool:addjob(function(x) return x end, function() done = done + 1 end, i)
   end
   pool:synchronize()
   assert(done == njobs)
end)))
pool:terminate()

-- The same jobs through ipc.map workers reading a workqueue (torch-ipc's way), for comparison.
local ipc = require 'libipc'
local q = ipc.workqueue('bench_scheduler')
local map = ipc.map(workers, function()
   local ipc = require 'libipc'
   local q = ipc.workqueue('bench_scheduler')
   while true do
      local job = q:read()
      if job == nil then break end
      q:writeup(job.f(job.x))
   end
end)
print(('ipc.map + workqueue empty\t%.3e'):format(timed(njobs, function()
   for i = 1, njobs do
      q:writeup({ f = function(x) return x end, x = i })
   end
   for _ = 1, njobs do q:read() end
end)))
for _ = 1, workers do q:write(nil) end
map:join()

-- Memory over many tasks with the reducing container.
local s = scheduler.threads(workers, { results = function(acc, v) return acc + v end, initial = 0 })
for i = 1, 10000 do s:add_task(i, identity) end
s:get_results()
collectgarbage()
local before = rss()
local chunk = 100000
for _ = 1, n_reduce / chunk do
   for i = 1, chunk do s:add_task(1) end
   assert(s:get_results() == chunk)
end
collectgarbage()
print(('scheduler.threads reduce %d tasks: rss MiB\t%.1f -> %.1f'):format(n_reduce, before, rss()))
s:shutdown()
