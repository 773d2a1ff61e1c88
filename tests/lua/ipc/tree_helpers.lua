-- Shared by the tree_*.lua scripts, which tests/ipc_tree.rs runs from tests/lua as
--    th ipc/tree_X.lua [args]
-- (several processes at once for the multi-node ones). Load it with
--    package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
--    local H = require 'tree_helpers'
require 'torch'
local ipc = require 'libipc'

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')

-- A broken set-up fails within these bounds instead of the harness's 60 s kill.
ipc.connecttimeout = 20
ipc.accepttimeout = 20

-- Every element of tensor t equals v.
function H.all(t, v, what)
   local lo, hi = t:min(), t:max()
   if lo ~= v or hi ~= v then
      error(string.format('%s: expected every element to be %s, got values in [%s, %s]', what, tostring(v),
         tostring(lo), tostring(hi)), 2)
   end
end

-- Runs the named checks in order (a table of {name, fn}); prints FAILED lines for the ones that
-- raise, then "ok" when all passed (exits 1 otherwise). With `stop`, the first failure exits at
-- once: the other nodes of a tree then see this one leave instead of waiting for it.
function H.run(checks, prefix, stop)
   local failed = 0
   for _, c in ipairs(checks) do
      local ok, err = pcall(c[2])
      if not ok then
         failed = failed + 1
         io.stderr:write(string.format('FAILED %s%s: %s\n', prefix or '', c[1], tostring(err)))
         if stop then os.exit(1) end
      end
   end
   if failed > 0 then os.exit(1) end
   print('ok')
end

-- 1 + 2 + ... + n
function H.tri(n) return n * (n + 1) / 2 end

return H
