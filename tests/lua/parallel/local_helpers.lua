-- Shared by the local_*.lua scripts, which tests/parallel.rs runs from tests/lua as
--    th parallel/local_X.lua [more]
-- Load it with
--    package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
--    local H = require 'local_helpers'
-- Children inherit package.path, so code they run can require it too.
require 'torch'
require 'sys'

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')

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
