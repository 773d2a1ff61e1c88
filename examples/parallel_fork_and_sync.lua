-- parallel_fork_and_sync.lua: lua---parallel's examples/parallelForkAndSync.lua. Twice: sfork(4)
-- (no remotes were added, so all four are local), run a timing function in each child, join them,
-- receive one time per child, then sync, which ends them: parallel.nchildren goes 4 -> 0.
--
-- Run:  th examples/parallel_fork_and_sync.lua [iterations]   (iterations: default 2000)

require 'parallel'

local function worker()
   require 'torch'
   require 'sys'
   local iterations = parallel.parent:receive()
   local s = torch.Tensor(100000):fill(1)
   local d = torch.Tensor(100000):fill(0)
   parallel.yield() -- start together, when the parent joins
   sys.tic()
   for _ = 1, iterations do
      d:add(13, s)
   end
   parallel.parent:send(sys.toc())
end

local function parent()
   local iterations = tonumber(arg[1]) or 2000
   for pass = 1, 2 do
      local forked = parallel.sfork(4)
      parallel.print('pass ' .. pass .. ': forked, nchildren = ' .. parallel.nchildren)
      assert(parallel.nchildren == 4)
      forked:exec(worker)
      forked:send(iterations)
      forked:join()
      local times = forked:receive()
      for i, t in pairs(times) do
         parallel.print(string.format('child %d: %d x add(13, s) in %.3f s', forked[i].id, iterations, t))
      end
      forked:sync()
      parallel.print('pass ' .. pass .. ': synced, nchildren = ' .. parallel.nchildren)
      assert(parallel.nchildren == 0)
   end
end

local ok, err = pcall(parent)
if not ok then print(err) end
parallel.close()
if not ok then os.exit(1) end
