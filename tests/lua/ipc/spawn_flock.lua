-- ipc.flock: blocking and non-blocking exclusive locks, nil for a missing or busy file, release by
-- close and by collection, checked against another process with flock(1) through ipc.spawn.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'spawn_helpers'
local ipc = require 'libipc'

-- Whether another process can take the lock on `name` right now (flock -n exits 1 when busy).
local function free_for_others(name)
   local p = ipc.spawn({ file = 'flock', args = { '-n', name, 'true' } })
   return p:wait() == 0
end

local function collect()
   collectgarbage()
   collectgarbage()
end

H.run {
   blockingAndNonBlocking = function()
      local name = os.tmpname()
      local lock = ipc.flock(name)
      H.eq(type(lock), 'userdata', 'lock')
      H.eq(ipc.flock(name, true), nil, 'non-blocking while held')
      H.eq(free_for_others(name), false, 'another process sees the lock')
      -- Waiting for a lock this thread holds would never end: it raises instead.
      H.raises('blocking while held', function() ipc.flock(name) end, 'ipc.flock', 'already holds the lock')
      lock:close()
      lock:close()
      H.eq(free_for_others(name), true, 'released by close')
      local again = ipc.flock(name, true)
      H.eq(type(again), 'userdata', 'non-blocking when free')
      H.eq(free_for_others(name), false, 'held again')
      again:close()
      os.remove(name)
   end,

   creation = function()
      local dir = os.tmpname()
      os.remove(dir)
      assert(os.execute('mkdir ' .. dir))
      local name = dir .. '/lockfile'
      -- Non-blocking mode does not create the file.
      H.eq(ipc.flock(name, true), nil, 'missing file, non-blocking')
      H.eq(io.open(name), nil, 'not created')
      -- Blocking mode creates it, mode 0600.
      local lock = ipc.flock(name)
      H.eq(type(lock), 'userdata', 'created')
      local p = ipc.spawn({ file = 'stat', args = { '-c', '%a', name } })
      H.eq(p:stdout('*l'), '600', 'mode')
      H.eq(p:wait(), 0, 'stat')
      lock:close()
      -- A missing directory gives nil in both modes.
      H.eq(ipc.flock(dir .. '/no/such/file'), nil, 'missing directory')
      H.eq(ipc.flock(dir .. '/no/such/file', true), nil, 'missing directory, non-blocking')
      os.remove(name)
      os.remove(dir)
   end,

   releasedByCollection = function()
      local name = os.tmpname()
      local function take() return ipc.flock(name) ~= nil end
      H.eq(take(), true, 'taken')
      collect()
      H.eq(free_for_others(name), true, 'released when collected')
      os.remove(name)
   end,

   errors = function()
      H.raises('a directory', function() ipc.flock('/tmp') end, 'ipc.flock', '/tmp')
      H.raises('no name', function() ipc.flock() end, 'ipc.flock: expected a file name', 'nil')
      H.raises('a table', function() ipc.flock({}) end, 'expected a file name', 'table')
   end,

   forkedHolder = function()
      -- A lock held by a forked child keeps this process out until that child exits (torch-ipc's
      -- test_flock.testDeadProcess, made step by step: the child holds the lock until told to go).
      local name = os.tmpname()
      local ready = os.tmpname()
      os.remove(ready)
      local pid = ipc.fork()
      if pid == 0 then
         local lock = ipc.flock(name)
         io.open(ready, 'w'):close()
         local told = H.eventually(function() return io.open(ready) == nil end)
         os.exit((lock and told) and 0 or 1)
      end
      H.check(H.eventually(function() return io.open(ready) ~= nil end), 'the child did not take the lock')
      H.eq(ipc.flock(name, true), nil, 'held by the child')
      os.remove(ready)
      H.eq(ipc.waitpid(pid), 0, 'child exit code')
      local lock = ipc.flock(name, true)
      H.eq(type(lock), 'userdata', 'free after the holder exited')
      lock:close()
      os.remove(name)
   end,
}
