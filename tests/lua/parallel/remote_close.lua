-- close() kills every remote child of this process, and the local children those forked, on the remote
-- side too, and nothing else there: a th started over ssh by someone else survives.
-- Prints 'pids: ...' (every process that must be gone) for the Rust side to check again after exit.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

local list = parallel.nfork(H.remote({2}))
list:exec(function()
   local function mypid() return tonumber(io.open('/proc/self/stat'):read('*l'):match('^(%d+)')) end
   local info = {pid = mypid()}
   if parallel.id == 1 then
      -- A grandchild, local to the remote side.
      local g = parallel.fork()
      g:exec(function()
         parallel.parent:send(tonumber(io.open('/proc/self/stat'):read('*l'):match('^(%d+)')))
         parallel.yield()
      end)
      info.grandchild = g:receive()
   end
   parallel.parent:send(info)
   parallel.yield() -- blocks until killed
end)
local infos = list:receive()
local pids = {}
for i = 1, 2 do
   H.check(type(infos[i]) == 'table' and H.alive(infos[i].pid), 'remote child %d runs', i)
   pids[#pids + 1] = infos[i].pid
   pids[#pids + 1] = list[i].unixid
end
H.check(type(infos[1].grandchild) == 'number' and H.alive(infos[1].grandchild), 'the grandchild runs')
pids[#pids + 1] = infos[1].grandchild

-- A bystander th on the remote side, not a child of this process: an orphan (its shell has exited).
local cmd = string.format([[%s %s 'setsid %s -e "sys.sleep(60)" </dev/null >/dev/null 2>&1 & echo $!']],
   H.protocol, H.host, H.th)
local f = io.popen(cmd)
local bystander = tonumber(f:read('*l'))
f:close()
H.check(bystander and H.alive(bystander), 'the bystander th runs (pid %s)', tostring(bystander))

print('pids: ' .. table.concat(pids, ' '))
parallel.close()
H.eq(parallel.nchildren, 0, 'nchildren after close')
H.eq(H.nchildren_listed(), 0, 'children listed after close')
for _, pid in ipairs(pids) do
   H.check(H.wait_gone(pid, 5), 'process %d gone after close()', pid)
end
local survived = H.alive(bystander)
os.execute('kill -9 ' .. bystander)
H.check(survived, 'close() left the bystander th (pid %d) alone', bystander)
print('ok')
