-- Shared by the spawn_*.lua scripts, which tests/ipc_spawn.rs runs from tests/lua as
--    th ipc/spawn_X.lua
-- Load it with
--    package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
--    local H = require 'spawn_helpers'
local H = {}

function H.check(cond, fmt, ...)
   if not cond then error(string.format(fmt, ...), 2) end
end

function H.eq(got, want, what)
   if got ~= want then
      error(string.format('%s: expected %q, got %q', what, tostring(want), tostring(got)), 2)
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

-- Whether process `pid` exists and is not a zombie (field 3 of /proc/<pid>/stat).
function H.alive(pid)
   local f = io.open('/proc/' .. tostring(pid) .. '/stat')
   if not f then return false end
   local line = f:read('*l') or ''
   f:close()
   local state = line:match('.*%) (%S)')
   return state ~= nil and state ~= 'Z' and state ~= 'X'
end

-- This process's pid, from /proc.
function H.pid()
   local f = assert(io.open('/proc/self/stat'))
   local pid = tonumber(f:read('*l'):match('^(%d+)'))
   f:close()
   return pid
end

-- Polls cond() every 10 ms for up to `seconds` (a bound for a loaded machine, not a timing check).
function H.eventually(cond, seconds)
   local deadline = os.time() + (seconds or 30)
   while not cond() do
      if os.time() > deadline then return false end
      sys.sleep(0.01)
   end
   return true
end

-- Runs every function of `cases` in sorted order; prints `FAILED <name>: <message>` on stderr for
-- each failure, then `ok` when all passed, else exits 1.
function H.run(cases)
   local names = {}
   for name in pairs(cases) do names[#names + 1] = name end
   table.sort(names)
   local failed = 0
   for _, name in ipairs(names) do
      local ok, msg = xpcall(cases[name], debug.traceback)
      if not ok then
         failed = failed + 1
         io.stderr:write(string.format('FAILED %s: %s\n', name, tostring(msg)))
      end
   end
   if failed > 0 then
      io.stderr:write(string.format('%d of %d checks failed\n', failed, #names))
      os.exit(1)
   end
   print('ok')
end

return H
