-- A remote child's failure raises in the parent, with the child's message, instead of hanging: an
-- error in function code, a compile error in string code, an exit, a kill.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

local list = parallel.nfork(H.remote({4}))
H.eq(#list, 4, '#nfork')

-- 1: raises.
list[1]:exec(function()
   error('boom from the remote child')
end)
local msg = H.raises('receive from a child that raised', function() list[1]:receive() end,
   'parallel.receive: child 1 ', ' failed: ', 'boom from the remote child')
H.check(msg:find('traceback', 1, true), 'the message carries the child\'s traceback:\n%s', msg)

-- 2: string code that does not compile.
list[2]:exec('local x = = 1')
H.raises('join on a child whose code did not compile', function() list[2]:join() end,
   'parallel.join: child 2 ', ' failed: ')

-- 3: exits with a status.
list[3]:exec(function() os.exit(7) end)
H.raises('receive from a child that exited', function() list[3]:receive() end,
   'parallel.receive: child 3 ', 'status 7')

-- 4: killed by a signal on the remote side.
list[4]:exec(function()
   local pid = tonumber(io.open('/proc/self/stat'):read('*l'):match('^(%d+)'))
   os.execute('kill -9 ' .. pid)
   parallel.yield()
end)
msg = H.raises('join with a child killed on the remote side', function() list[4]:join() end,
   'parallel.join: child 4 ')
H.check(msg:find('died', 1, true) or msg:find('exited', 1, true) or msg:find('failed', 1, true),
   'the message says the child died:\n%s', msg)

parallel.close()
H.eq(parallel.nchildren, 0, 'nchildren after close')
H.eq(H.nchildren_listed(), 0, 'children listed after close')
print('ok')
