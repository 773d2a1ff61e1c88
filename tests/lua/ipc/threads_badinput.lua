-- Wrong types to every call of the in-process ipc API: each gives a Lua error that names the call,
-- in the main thread and in workers, and the other threads keep working meanwhile.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

-- Every bad call, as {name the error must mention, function}. Run in any thread.
local function badCalls()
   local ipc = require 'libipc'
   local q, c, m, mx = ipc.workqueue(), ipc.channel(), ipc.marshal(1), ipc.mutex()
   local st = ipc.sharedtable()
   local map = ipc.map(1, function() end)
   local calls = {
      { 'ipc.map', function() ipc.map(1, 5) end },
      { 'ipc.map', function() ipc.map(0, function() end) end },
      { 'ipc.map', function() ipc.map(-1, function() end) end },
      { 'ipc.map', function() ipc.map('x', function() end) end },
      { 'ipc.map_extended', function() ipc.map_extended(2.5, nil, function() end) end },
      { 'ipc.map_extended', function() ipc.map_extended(1, {}, function() end) end },
      { 'ipc.map_extended', function() ipc.map_extended(1, nil, nil) end },
      { 'ipc.map:join', function() map.join(1) end },
      { 'ipc.map:checkErrors', function() map.checkErrors('x') end },
      { 'ipc.workqueue', function() ipc.workqueue({}) end },
      { 'ipc.workqueue', function() ipc.workqueue('n', {}) end },
      { 'ipc.workqueue:read', function() q:read(5) end },
      { 'ipc.workqueue:read', function() q.read(c) end },
      { 'ipc.workqueue:write', function() q.write(nil, 1) end },
      { 'ipc.workqueue:write', function() q:write(coroutine.create(print)) end },
      { 'ipc.workqueue:writeup', function() q.writeup(1) end },
      { 'ipc.workqueue:drain', function() q.drain(m) end },
      { 'ipc.workqueue:close', function() q.close(false) end },
      { 'ipc.channel:read', function() c:read('now') end },
      { 'ipc.channel:read', function() c.read(q) end },
      { 'ipc.channel:write', function() c.write({}) end },
      { 'ipc.channel:write', function() c:write(coroutine.create(print)) end },
      { 'ipc.channel:num_items', function() c.num_items() end },
      { 'ipc.channel:close', function() c.close(1) end },
      { 'ipc.channel:closed', function() c.closed('') end },
      { 'ipc.channel:drained', function() c.drained(q) end },
      { 'ipc.mutex:lock', function() mx.lock(q) end },
      { 'ipc.mutex:unlock', function() mx.unlock(1) end },
      { 'ipc.mutex:barrier', function() mx:barrier({}) end },
      { 'ipc.mutex:barrier', function() mx:barrier(-3) end },
      { 'ipc.marshal', function() ipc.marshal() end },
      { 'ipc.marshal', function() ipc.marshal(1, nil, {}) end },
      { 'ipc.marshal:read', function() m.read(mx) end },
      { 'ipc.marshal:close', function() m.close() end },
      { 'ipc.sharedtable', function() ipc.sharedtable('t') end },
      { 'ipc.sharedtable', function() ipc.sharedtable({}, 1) end },
      { 'ipc.sharedtable', function() st[print] = 1 end },
      { 'ipc.sharedtable', function() return st[{}] end },
      { 'ipc.sharedtable_size', function() ipc.sharedtable_size(q) end },
   }
   local failures = {}
   for i, call in ipairs(calls) do
      local ok, err = pcall(call[2])
      if ok then
         failures[#failures + 1] = 'call ' .. i .. ' (' .. call[1] .. ') did not raise'
      elseif type(err) ~= 'string' or not err:find(call[1], 1, true) then
         failures[#failures + 1] = 'call ' .. i .. ': the error should name ' .. call[1] .. ', got: ' .. tostring(err)
      end
   end
   return #calls, table.concat(failures, '\n')
end

test {
   everyBadCallNamesTheCall = function()
      local n, failures = badCalls()
      assert(n > 30, 'calls run')
      assert(failures == '', failures)
   end,

   inWorkersWhileOthersKeepWorking = function()
      local c = ipc.channel()
      -- A worker serving the channel while the other workers (and the main thread) make bad calls.
      local server = ipc.map(1, function(c)
         local served = 0
         while true do
            local status, v = c:read()
            if status == 2 then break end
            served = served + 1
         end
         return served
      end, c)
      local r = H.pack(ipc.map(3, badCalls):join())
      for i = 1, 3 do H.eq(r[2 * i], '', 'failures in worker ' .. i) end
      local n, failures = badCalls()
      assert(failures == '', failures)
      for i = 1, 100 do H.eq(c:write(i), 0, 'write ' .. i) end
      c:close()
      H.eq(server:join(), 100, 'the server served every item')
   end,
}
print('ok')
