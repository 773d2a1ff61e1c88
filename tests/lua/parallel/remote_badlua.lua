-- fork with a remote command that fails (a th that is not there, a th given a bad flag): a clear error
-- carrying the remote side's message, within a bounded time; nothing is left registered.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

local t0 = sys.clock()
local msg = H.raises('fork with a missing remote th', function()
   parallel.fork(H.host, H.protocol, '/nonexistent/bin/th')
end, 'parallel.fork', '/nonexistent/bin/th')
print('fork error: ' .. msg)
H.check(sys.clock() - t0 < 20, 'fork with a missing th failed after %.1f s (bound 20 s)', sys.clock() - t0)

t0 = sys.clock()
msg = H.raises('fork with a remote th that exits at once', function()
   parallel.fork(H.host, H.protocol, H.th .. ' --no-such-flag')
end, 'parallel.fork', '--no-such-flag')
print('fork error: ' .. msg)
H.check(sys.clock() - t0 < 20, 'fork with a failing th failed after %.1f s (bound 20 s)', sys.clock() - t0)

H.eq(parallel.nchildren, 0, 'nchildren after failed forks')
H.eq(H.nchildren_listed(), 0, 'children listed after failed forks')
print('ok')
