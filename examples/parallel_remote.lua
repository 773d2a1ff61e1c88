-- parallel_remote.lua: lua---parallel's examples/parallelRemote.lua. Declares 'localhost' as a
-- remote machine with 2 cores, reached over ssh, calibrates it, then sfork(3) puts three workers
-- on it (one more than its cores: sfork warns) and exchanges data both ways with them.
--
-- Run:  th examples/parallel_remote.lua [rounds]      (rounds: default 5)
-- Needs passwordless ssh to localhost and `th` on the PATH (or PARALLEL_TH=/path/to/th).
-- PARALLEL_SSH replaces the ssh command, e.g. PARALLEL_SSH='ssh -p 2222'.

require 'parallel'

local rounds = tonumber(arg[1]) or 5
local th = os.getenv('PARALLEL_TH') or paths.findprogram('th')
if not th then
   print('parallel_remote: th is not on the PATH; set PARALLEL_TH=/path/to/th')
   os.exit(1)
end

local function worker()
   require 'torch'
   parallel.print('Im a remote worker, my ID is: ' .. parallel.id .. ' and my IP: ' .. tostring(parallel.ip))
   while true do
      local m = parallel.yield()
      if m == 'break' then break end
      local t = parallel.parent:receive()
      -- reply with something computed here and a tensor of our own
      parallel.parent:send({ id = parallel.id, norm = t.data:norm(), data = t.data * 2 })
   end
end

local function parent()
   parallel.addremote({ ip = 'localhost', cores = 2, lua = th, protocol = os.getenv('PARALLEL_SSH') or 'ssh -Y' })
   parallel.calibrate()
   for i, r in ipairs(parallel.remotes) do
      parallel.print(string.format('remote %d: %s, %d cores, speed %.1f', i, r.ip, r.cores, r.speed or 1))
   end

   local workers = parallel.sfork(3)
   workers:exec(worker)
   local t = { data = torch.randn(50, 50) }
   for round = 1, rounds do
      workers:join()
      workers:send(t)
      local replies = workers:receive()
      for i, r in pairs(replies) do
         assert(math.abs(r.norm - t.data:norm()) < 1e-6 and r.data:dist(t.data * 2) < 1e-9)
         if round == 1 then
            parallel.print(string.format('worker %d (child %d on %s) replied, norm %.4f', i, r.id, workers[i].ip, r.norm))
         end
      end
   end
   parallel.print(rounds .. ' rounds with ' .. #workers .. ' remote workers')
   workers:join('break')
   workers:sync()
end

local ok, err = pcall(parent)
if not ok then print(err) end
parallel.close()
if not ok then os.exit(1) end
