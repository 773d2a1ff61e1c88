-- Shared by the spawn_*.lua scripts, which tests/ipc_spawn.rs runs from tests/lua as
--    th ipc/spawn_X.lua
-- Load it with
--    package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
--    local H = require 'spawn_helpers'
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')

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
