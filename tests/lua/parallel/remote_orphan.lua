-- The parent of a remote child, to be killed with SIGKILL by tests/parallel_remote.rs once it printed
-- 'remote pid <pid> ssh <pid>'; the remote th must go within 2 s.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

local c = parallel.fork(H.host, H.protocol, H.th)
c:exec(function()
   parallel.parent:send(tonumber(io.open('/proc/self/stat'):read('*l'):match('^(%d+)')))
   while true do parallel.yield() end
end)
local pid = c:receive()
io.stdout:write(string.format('remote pid %d ssh %d\n', pid, c.unixid))
io.stdout:flush()
sys.sleep(120)
