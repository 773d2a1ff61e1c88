-- exec over ssh: string and function code, exec again once the code returned, the "still running" and
-- "finished its code" errors, receive with 'noblock', and exec on a synced child.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

local child = parallel.fork(H.host, H.protocol, H.th)

-- String code, compiled in the child.
child:exec([[
   parallel.parent:send(parallel.id * 10)
   local m = parallel.yield()
   parallel.parent:send('after yield: ' .. m)
   parallel.yield()
]])
H.eq(child:receive(), 10, 'value sent by string code')

-- The child is blocked in yield: nothing is queued, and exec is refused.
local got = {child:receive('noblock')}
H.eq(#got, 0, 'receive(child, "noblock") with nothing queued returns nothing')
local list_got = parallel.receive({child}, 'noblock')
H.check(type(list_got) == 'table' and next(list_got) == nil,
   'receive(list, "noblock") with nothing queued returns an empty table, got %s', tostring(list_got))
H.raises('exec on a running child', function() child:exec('x = 1') end,
   'parallel.exec: child 1', 'is still running code')

child:join('hi')
-- Poll with noblock until the message arrives (bounded).
local t0, value, ok = sys.clock()
repeat
   value, ok = child:receive('noblock')
   if value == nil then sys.sleep(0.02) end
until value ~= nil or sys.clock() - t0 > 20
H.eq(value, 'after yield: hi', 'message polled with noblock')
H.eq(ok, true, 'noblock receive\'s second result')
child:join()

-- The code has returned (or is about to): exec again, retrying while the child is still finishing.
H.retry_while('still running', 20, function()
   child:exec(function()
      parallel.parent:send({second = true, id = parallel.id})
   end)
end)
local second = child:receive()
H.check(type(second) == 'table' and second.second == true and second.id == 1, 'second exec ran')

-- That code has finished and nothing is queued: join and receive fail instead of hanging.
H.raises('join on a child that finished its code', function() child:join() end,
   'parallel.join: child 1', 'has finished its code')
H.raises('receive on a child that finished its code', function() child:receive() end,
   'parallel.receive: child 1')

child:sync()
H.eq(parallel.nchildren, 0, 'nchildren after sync')
H.raises('exec on a synced child', function() parallel.exec(child, 'x = 1') end, 'child 1')
print('ok')
