-- addremote + sfork: parallel.remotes is the global remotes, cores are counted, sfork spreads round-robin
-- over the remotes' cores, oversubscribes with a WARNING (checked on the Rust side, after the marker line),
-- and sync gives the cores back.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

parallel.addremote(H.remote({ip = 'testhost', cores = 1}), H.remote({ip = 'testhost2', cores = 2}))
H.check(type(parallel.remotes) == 'table', 'parallel.remotes is a table after addremote, got %s', type(parallel.remotes))
H.check(rawequal(parallel.remotes, remotes), 'parallel.remotes is the global remotes')
H.eq(#remotes, 2, '#remotes')
H.eq(remotes.cores, 3, 'remotes.cores')
H.eq(remotes[1].ip, 'testhost', 'remotes[1].ip'); H.eq(remotes[1].cores, 1, 'remotes[1].cores')
H.eq(remotes[2].ip, 'testhost2', 'remotes[2].ip'); H.eq(remotes[2].cores, 2, 'remotes[2].cores')

local function count(list)
   local per = {}
   for _, c in ipairs(list) do
      H.check(c.remote ~= nil, 'child %d has its remote', c.id)
      H.eq(c.ip, c.remote.ip, 'child.ip is its remote\'s')
      H.eq(c.speed, c.remote.speed or 1, 'child.speed')
      per[c.ip] = (per[c.ip] or 0) + 1
   end
   return per
end

local first = parallel.sfork(3)
H.eq(#first, 3, '#sfork(3)')
local per = count(first)
H.eq(per.testhost, 1, 'sfork(3) on testhost (1 core)')
H.eq(per.testhost2, 2, 'sfork(3) on testhost2 (2 cores)')
H.eq(remotes.cores, 0, 'remotes.cores after sfork(3)')
io.stdout:write('-- sfork(3) done\n'); io.stdout:flush()

-- No core left: one more child per remote, in order, with a warning.
local more = parallel.sfork(2)
H.eq(#more, 2, '#sfork(2)')
H.eq(more[1].ip, 'testhost', 'first oversubscribed child')
H.eq(more[2].ip, 'testhost2', 'second oversubscribed child')
H.eq(remotes.cores, -2, 'remotes.cores after oversubscribing')
H.eq(parallel.nchildren, 5, 'nchildren')

-- They all run code over ssh.
parallel.children:exec(function() parallel.parent:send(parallel.id) end)
local ids = parallel.children:receive()
for id, c in pairs(parallel.children) do
   if type(c) == 'table' then H.eq(ids[id], id, 'child ' .. id .. ' answered') end
end
parallel.children:sync()
H.eq(parallel.nchildren, 0, 'nchildren after sync')
H.eq(remotes.cores, 3, 'remotes.cores given back by sync')
H.eq(remotes[1].cores, 1, 'remotes[1].cores given back')
H.eq(remotes[2].cores, 2, 'remotes[2].cores given back')
print('ok')
