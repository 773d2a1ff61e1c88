-- Shared by the nccl test scripts, which tests/nccl.rs runs from tests/lua as `th nccl/X.lua` (the
-- GPU script also runs on its own: `th tests/lua/nccl/gpu.lua`). Load it with
--    local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
-- Each case prints `PASS <name>` or `FAIL <name>: <message>`; H.finish() prints `ok` when all
-- passed and raises otherwise.
require 'torch'

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '../process_test_helpers.lua')

H.failed = {}

function H.case(name, fn, ...)
   local ok, err = xpcall(fn, debug.traceback, ...)
   if ok then
      print('PASS ' .. name)
   else
      H.failed[#H.failed + 1] = name
      print('FAIL ' .. name .. ': ' .. tostring(err))
   end
   io.stdout:flush()
end

function H.finish()
   if #H.failed > 0 then
      error(#H.failed .. ' case(s) failed: ' .. table.concat(H.failed, ', '), 2)
   end
   print('ok')
end

-- cutorch, when it loads and sees at least one device; else nil and why not.
function H.cutorch()
   local ok, cutorch = pcall(require, 'cutorch')
   if not ok then return nil, 'cutorch is not available: ' .. tostring(cutorch):match('^[^\n]*') end
   local n = cutorch.getDeviceCount()
   if n < 1 then return nil, 'no CUDA device (cutorch.getDeviceCount() is ' .. tostring(n) .. ')' end
   return cutorch
end

-- Checks that fn raises an error that starts with `prefix` (the function's name) and holds every
-- further plain string given.
function H.fails(what, prefix, fn, ...)
   local msg = H.raises(what, fn, ...)
   -- Errors raised from Lua may carry a position ("file:line: ") before the message.
   local at = msg:find(prefix, 1, true)
   if not at or (at > 1 and not msg:sub(1, at - 1):match(':%d+: $')) then
      error(string.format('%s: the error should start with %q, got:\n%s', what, prefix, msg), 2)
   end
   return msg
end

return H
