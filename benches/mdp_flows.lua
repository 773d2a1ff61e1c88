-- Times MDP's tutorial flow, PCANode(100 -> 10) + SFA2Node(10 -> 10), trained on
--   tutorial: 10 chunks of 50x100        large: 100 chunks of 1000x100
-- plain (Flow:train), and as a ParallelFlow with scheduler.processes(2) and scheduler.threads(2):
-- "cold" is create the scheduler + train + shutdown (as MDP's ProcessScheduler figures), "warm"
-- is train only with running workers. Prints "RESULT <case> <column> <median seconds>" lines,
-- read by benches/mdp_flows.py, which runs MDP 3.6 alongside.
-- Usage: th benches/mdp_flows.lua [repeats_plain_tutorial [repeats_other]]
local mdp = require 'mdp'
local scheduler = require 'scheduler'

local R_TUT = tonumber(arg and arg[1]) or 30
local R_OTHER = tonumber(arg and arg[2]) or 3

torch.manualSeed(0)
local cases = {
   { name = 'tutorial', n = 10, rows = 50 },
   { name = 'large', n = 100, rows = 1000 },
}

local function flow_of(cls)
   return cls { mdp.nodes.PCANode { input_dim = 100, output_dim = 10 }, mdp.nodes.SFA2Node { input_dim = 10, output_dim = 10 } }
end

local function median(t)
   table.sort(t)
   local n = #t
   if n % 2 == 1 then return t[(n + 1) / 2] end
   return 0.5 * (t[n / 2] + t[n / 2 + 1])
end

local function time(f, reps)
   local times = {}
   for i = 1, reps do
      collectgarbage()
      local t = torch.Timer()
      f()
      times[i] = t:time().real
   end
   return median(times)
end

local function report(case, column, secs)
   print(('RESULT %s %s %.6f'):format(case, column, secs))
   io.stdout:flush()
end

for _, c in ipairs(cases) do
   local chunks = {}
   for i = 1, c.n do chunks[i] = torch.rand(c.rows, 100) end
   local data = { chunks, chunks }
   local reps = c.name == 'tutorial' and R_TUT or R_OTHER
   -- warm-up (JIT, BLAS threads)
   flow_of(mdp.Flow):train(data)

   report(c.name, 'plain', time(function() flow_of(mdp.Flow):train(data) end, reps))

   for _, kind in ipairs { 'processes', 'threads' } do
      report(c.name, kind .. '2_cold', time(function()
         local s = scheduler[kind](2)
         flow_of(mdp.parallel.ParallelFlow):train(data, s)
         s:shutdown()
      end, R_OTHER))
      local s = scheduler[kind](2)
      flow_of(mdp.parallel.ParallelFlow):train(data, s)
      report(c.name, kind .. '2_warm', time(function()
         flow_of(mdp.parallel.ParallelFlow):train(data, s)
      end, R_OTHER))
      s:shutdown()
   end
end
