-- fork to a host whose sshd is not there (argument 3: a closed port) fails with ssh's reason, quickly;
-- a good fork works afterwards.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'
local port = assert(arg[3], 'argument 3: a closed port')

local t0 = sys.clock()
local msg = H.raises('fork to a closed port', function()
   parallel.fork(H.host, H.protocol .. ' -p ' .. port, H.th)
end, 'parallel.fork')
print('fork error: ' .. msg)
local dt = sys.clock() - t0
H.check(msg:find('refused', 1, true), 'the error carries ssh\'s reason (connection refused):\n%s', msg)
H.check(dt < 20, 'fork failed after %.1f s (bound 20 s)', dt)
H.eq(parallel.nchildren, 0, 'nchildren after a failed fork')
H.eq(H.nchildren_listed(), 0, 'children listed after a failed fork')

local c = parallel.fork(H.host, H.protocol, H.th)
c:exec(function() parallel.parent:send('fine') end)
H.eq(c:receive(), 'fine', 'a fork after the failed one')
c:sync()
print('ok')
