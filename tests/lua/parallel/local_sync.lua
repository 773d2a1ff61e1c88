-- sync: returns once the child's code has finished (not before), ends the process, takes the
-- child out of parallel.children; nchildren goes n -> 0; lists and parallel.children sync as a
-- group; unread messages are dropped with the child.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local dir = os.tmpname()
os.remove(dir)
os.execute('mkdir -p ' .. dir)

local l = parallel.nfork(4)
H.eq(parallel.nchildren, 4, 'nchildren after nfork(4)')
-- Each child's code waits for the parent, works a little, then leaves a file as its last act.
l:exec(function()
   parallel.yield()
   local dir = parallel.parent:receive()
   local t = torch.FloatTensor(1000):fill(1)
   for _ = 1, 200 do t:add(1) end
   local f = io.open(dir .. '/done' .. parallel.id, 'w')
   f:write(tostring(t[1]))
   f:close()
end)
l:send(dir)
l:join()

local function done(id)
   local f = io.open(dir .. '/done' .. id)
   if not f then return nil end
   local s = f:read('*a')
   f:close()
   return s
end

-- One child: when sync returns its code has finished and its process is gone.
local pid1 = l[1].unixid
l[1]:sync()
H.eq(done(l[1].id), '201', 'the code finished before sync returned')
H.check(not H.alive(pid1), 'the synced child\'s process %d is gone', pid1)
H.eq(parallel.nchildren, 3, 'nchildren after one sync')
H.eq(parallel.children[l[1].id], nil, 'a synced child leaves parallel.children')
H.eq(table.concat(H.listed(), ','), '2,3,4', 'children after one sync')

-- A sub-list.
parallel.sync({ l[2], l[3] })
H.eq(done(l[2].id), '201', 'child 2 finished before the list sync returned')
H.eq(done(l[3].id), '201', 'child 3 finished before the list sync returned')
H.eq(parallel.nchildren, 1, 'nchildren after syncing a list of two')
H.check(not H.alive(l[2].unixid) and not H.alive(l[3].unixid), 'the synced list\'s processes are gone')

-- parallel.children: every one left.
parallel.children:sync()
H.eq(done(l[4].id), '201', 'child 4 finished before children:sync returned')
H.eq(parallel.nchildren, 0, 'nchildren after children:sync')
H.eq(#H.listed(), 0, 'no child listed after children:sync')
H.check(not H.alive(l[4].unixid), 'child 4\'s process is gone')

-- Children never given code, and a child with unread messages (big and small): sync ends them.
local m = parallel.nfork(2)
H.eq(parallel.nchildren, 2, 'nchildren after nfork(2)')
m[2]:exec(function()
   parallel.parent:send('unread')
   parallel.parent:send(torch.FloatTensor(1024 * 1024):fill(3))
end)
m:sync()
H.eq(parallel.nchildren, 0, 'nchildren after syncing idle children')
H.check(not H.alive(m[1].unixid) and not H.alive(m[2].unixid), 'the idle children are gone')

-- sync of an empty list, and of parallel.children when there are none.
parallel.sync({})
parallel.children:sync()
H.eq(parallel.nchildren, 0, 'nchildren after empty syncs')

-- Forking goes on after syncs, with fresh ids.
local again = parallel.fork()
H.eq(again.id, 7, 'the next id after syncs')
again:exec('parallel.parent:send(parallel.id)')
H.eq(again:receive(), 7, 'a child forked after syncs works')
again:sync()

os.execute('rm -rf ' .. dir)
H.finish()
