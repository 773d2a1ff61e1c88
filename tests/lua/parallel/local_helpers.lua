-- Shared by the local_*.lua scripts, which tests/parallel.rs runs from tests/lua as
--    th parallel/local_X.lua [more]
-- Load it with
--    package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
--    local H = require 'local_helpers'
-- Children inherit package.path, so code they run can require it too.
require 'torch'
require 'sys'

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
      local tasks = paths.dir('/proc/' .. tostring(pid) .. '/task') or {}
      return #tasks > 3
   end
   return state ~= nil and state ~= 'X'
end

-- Waits up to `secs` seconds for `pid` to be gone; whether it went.
function H.wait_gone(pid, secs)
   local t0 = sys.clock()
   while H.alive(pid) do
      if sys.clock() - t0 > secs then return false end
      sys.sleep(0.01)
   end
   return true
end

-- Bound for a process that should end promptly (generous: the machine may be loaded).
H.GONE_SECS = 10

function H.assert_gone(pid, what)
   if not H.wait_gone(pid, H.GONE_SECS) then
      error(string.format('%s: process %d still running after %d s', what, pid, H.GONE_SECS), 2)
   end
end

-- The child entries (tables under numeric keys) of `parallel.children`, as a sorted list of keys.
function H.listed()
   local keys = {}
   for k, v in pairs(parallel.children) do
      if type(v) == 'table' and type(k) == 'number' then keys[#keys + 1] = k end
   end
   table.sort(keys)
   return keys
end

-- Keys of a table as a sorted, comma-separated string (numbers only).
function H.keys(t)
   local keys = {}
   for k in pairs(t) do keys[#keys + 1] = k end
   table.sort(keys)
   return table.concat(keys, ',')
end

-- Shared-memory segments in /dev/shm made by process `pid` (named luatorch-<run>-<pid>-<n>-<nonce>).
function H.segments_of(pid)
   local out = {}
   local p = io.popen('ls /dev/shm 2>/dev/null')
   for name in p:lines() do
      if name:match('^luatorch%-') and name:find('-' .. pid .. '-', 1, true) then out[#out + 1] = name end
   end
   p:close()
   return out
end

-- Checks that the implementation does not meet yet, kept enabled: a failure is reported on stderr
-- as "FAILED <what>: <message>" and the script goes on; H.finish() then raises.
H.failures = {}

function H.soft(what, fn, ...)
   local ok, msg = pcall(fn, ...)
   if not ok then
      H.failures[#H.failures + 1] = what
      io.stderr:write('FAILED ' .. what .. ': ' .. tostring(msg) .. '\n')
   end
   return ok
end

-- Ends a script: 'ok' when every check passed.
function H.finish()
   if #H.failures > 0 then
      error(#H.failures .. ' check(s) failed: ' .. table.concat(H.failures, '; '), 2)
   end
   print('ok')
end

return H
