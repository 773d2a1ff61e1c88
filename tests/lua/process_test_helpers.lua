-- Assertions and process checks shared by the area helpers of the multi-process and multi-thread
-- tests (parallel/local_helpers.lua, parallel/remote_helpers.lua, ipc/*_helpers.lua). An area helper
-- loads it from its own directory with
--    local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')
-- and adds what only its area needs.
local H = {}

function H.check(cond, fmt, ...)
   if not cond then error(string.format(fmt, ...), 2) end
end

function H.eq(got, want, what)
   if got ~= want then
      error(string.format('%s: expected %s, got %s', what, tostring(want), tostring(got)), 2)
   end
end

-- Calls fn, which must raise; checks that the message holds each of the plain strings given and
-- returns it.
function H.raises(what, fn, ...)
   local ok, msg = pcall(fn)
   if ok then error(what .. ': expected an error, got none', 2) end
   msg = tostring(msg)
   for _, s in ipairs({ ... }) do
      if not msg:find(s, 1, true) then
         error(string.format('%s: the error should mention %q, got:\n%s', what, s, msg), 2)
      end
   end
   return msg
end

-- This process's pid.
function H.pid()
   local f = assert(io.open('/proc/self/stat'))
   local pid = tonumber(f:read('*l'):match('^(%d+)'))
   f:close()
   return pid
end

-- Whether process `pid` exists and is not a zombie (PID 1 in a container may not reap: a zombie
-- counts as gone). Field 3 of /proc/<pid>/stat, after the parenthesised command name.
function H.alive(pid)
   local f = io.open('/proc/' .. tostring(pid) .. '/stat')
   if not f then return false end
   local line = f:read('*l') or ''
   f:close()
   local state = line:match('.*%) (%S)')
   if state == 'Z' then
      -- A multi-threaded process shows its main thread as a zombie while its other threads are
      -- still exiting; only once they are gone can its parent reap it.
      local tasks = 0
      local dir = io.popen('ls /proc/' .. tostring(pid) .. '/task 2>/dev/null')
      for _ in dir:lines() do tasks = tasks + 1 end
      dir:close()
      return tasks > 1
   end
   return state ~= nil and state ~= 'X'
end

-- Waits up to `secs` seconds for `pid` to be gone; whether it went.
function H.wait_gone(pid, secs)
   local clock = os.time
   local ok, sys = pcall(require, 'sys')
   if ok then clock = sys.clock end
   local t0 = clock()
   while H.alive(pid) do
      if clock() - t0 > secs then return false end
      if ok then sys.sleep(0.01) else os.execute('sleep 0.01') end
   end
   return true
end

return H
