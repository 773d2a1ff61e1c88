-- Shared by the threads_*.lua scripts, which tests/ipc_threads.rs runs from tests/lua as
--    th ipc/threads_X.lua
-- Load it with
--    package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
--    local H = require 'threads_helpers'
-- The cases themselves are regress tables; each script prints `ok` last when every case passed.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')

-- The values of a call as a table with its count in `n`.
function H.pack(...)
   return { n = select('#', ...), ... }
end

-- Checks that list `got` (with `n`) holds exactly the values of `want` (with `n`).
function H.same_list(got, want, what)
   H.eq(got.n or #got, want.n or #want, what .. ': count')
   for i = 1, want.n or #want do
      H.eq(got[i], want[i], what .. ': value ' .. i)
   end
end

-- Deep equality of plain values and tables.
function H.deq(a, b)
   if type(a) ~= type(b) then return false end
   if type(a) ~= 'table' then return a == b end
   for k, v in pairs(a) do
      if not H.deq(v, b[k]) then return false end
   end
   for k in pairs(b) do
      if a[k] == nil then return false end
   end
   return true
end

-- Polls `cond` every few milliseconds until it returns true; raises after `secs` (a bound for a
-- wedged implementation, never a timing assumption: the condition is bound to become true).
function H.eventually(what, cond, secs)
   local t0 = os.time()
   while not cond() do
      if os.time() - t0 > (secs or 30) then error(what .. ': still not true after ' .. (secs or 30) .. ' s', 2) end
      require('sys').sleep(0.005)
   end
end

return H
