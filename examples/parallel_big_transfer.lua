-- parallel_big_transfer.lua: in the spirit of lua---parallel's examples/parallelBigTransfer.lua
-- (which sent a 3x480x640 image), a 64 MiB FloatTensor (16M floats) goes to one child N times.
-- Each round the parent joins the child, sends the tensor and waits for the child's reply, the
-- tensor's sum, which it checks. Prints the time per round and the rate, with torch.Timer.
--
-- Run:  th examples/parallel_big_transfer.lua [N]      (N: default 20)

require 'parallel'

local n = tonumber(arg[1]) or 20

local function worker()
   require 'torch'
   while true do
      local m = parallel.yield()
      if m == 'break' then break end
      local t = parallel.parent:receive()
      parallel.parent:send(t:sum()) -- the checksum reads every element
      t = nil
      collectgarbage()
   end
end

local function parent()
   local child = parallel.fork()
   child:exec(worker)
   local t = torch.FloatTensor(16 * 1024 * 1024):uniform()
   local bytes = t:nElement() * 4
   local expected = t:sum()
   parallel.print(string.format('sending %d MiB to child %d, %d times', bytes / 2 ^ 20, child.id, n))

   local timer = torch.Timer()
   local best = math.huge
   for i = 1, n do
      local t0 = timer:time().real
      child:join()
      child:send(t)
      local sum = child:receive()
      local dt = timer:time().real - t0
      assert(sum == expected, string.format('round %d: checksum %s, expected %s', i, sum, expected))
      best = math.min(best, dt)
      io.write(string.format('\rround %d/%d: %.1f ms', i, n, dt * 1e3))
      io.flush()
   end
   local total = timer:time().real
   io.write('\n')
   parallel.print(string.format('average %.1f ms per round, %.2f GB/s (best round %.2f GB/s),' ..
      ' the child\'s checksum included', total / n * 1e3, bytes * n / total / 1e9, bytes / best / 1e9))
   child:join('break')
   child:sync()
end

local ok, err = pcall(parent)
if not ok then print(err) end
parallel.close()
if not ok then os.exit(1) end
