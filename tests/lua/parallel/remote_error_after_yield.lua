-- A remote child that meets the parent's join and raises right after: the join completed, so it
-- returns; the parent's next call on that child raises with the child's message.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

local c = parallel.fork(H.host, H.protocol, H.th)
c:exec(function()
   parallel.yield()
   error('boom after the rendezvous')
end)
c:join()
H.raises('receive after the child raised', function() c:receive() end,
   'parallel.receive: child 1 ', ' failed: ', 'boom after the rendezvous')
parallel.close()
print('ok')
