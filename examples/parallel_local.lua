-- parallel_local.lua: lua---parallel's "simple complete example" (its README and
-- examples/parallelLocal.lua). The parent forks 4 local workers and runs the worker function in
-- each; every round it joins them (each worker is waiting in parallel.yield), sends them a table
-- holding a 100x100 tensor, and collects one reply per worker. join('break') ends the workers'
-- loops and close() ends the session.
--
-- Run:  th examples/parallel_local.lua [rounds]      (rounds: default 10)

require 'parallel'

local rounds = tonumber(arg[1]) or 10

-- Runs in each child. It is sent as bytecode: `parallel`, `torch` and `string` are the child's
-- globals.
local function worker()
   require 'torch'
   parallel.print('Im a worker, my ID is: ' .. parallel.id .. ' and my IP: ' .. tostring(parallel.ip))
   while true do
      -- wait for the parent's join; it may tell us to stop
      local m = parallel.yield()
      if m == 'break' then break end
      local t = parallel.parent:receive()
      parallel.print(string.format('received object %q with norm: %.4f', t.name, t.data:norm()))
      parallel.parent:send('this is my response')
   end
end

local function parent()
   parallel.print('Im the parent, my ID is: ' .. parallel.id)
   parallel.nfork(4)
   parallel.children:exec(worker)
   local t = { name = 'my variable', data = torch.randn(100, 100) }
   parallel.print(string.format('transmitting object with norm: %.4f', t.data:norm()))
   for _ = 1, rounds do
      parallel.children:join()
      parallel.children:send(t)
      local replies = parallel.children:receive()
      for id, reply in pairs(replies) do
         assert(reply == 'this is my response', 'unexpected reply from child ' .. id)
      end
   end
   parallel.print('transmitted data to all children, ' .. rounds .. ' rounds')
   parallel.children:join('break')
   parallel.print('all processes terminated')
end

-- Protected execution: whatever happens, no child outlives the session.
local ok, err = pcall(parent)
if not ok then print(err) end
parallel.close()
if not ok then os.exit(1) end
