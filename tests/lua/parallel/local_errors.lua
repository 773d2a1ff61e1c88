-- Errors: a child's code that raises (seen by join, receive, sync), a child killed by SIGKILL or
-- exiting, join/receive on a child that finished its code, calls on synced and closed children,
-- values that cannot be sent, wrong argument shapes; and `remotes` after addremote. The parent
-- keeps working after each.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

local l = parallel.nfork(3)

-- 1: join raises with the child's message and traceback.
l[1]:exec(function()
   parallel.yield()
   local function inner() error('boom in join') end
   inner()
end)
-- The join met the child's yield before the code raised: it returns (the failure shows next).
H.soft('join that met a yield before the child raised returns', function() l[1]:join() end)
local msg = H.raises('join on a child whose code raised', function() l[1]:join() end,
   'parallel.join: child 1', 'failed: ', 'boom in join', 'stack traceback', 'inner')
-- Raised again on the next call: the child stays failed.
H.raises('exec on a child whose code raised', function() l[1]:exec('x = 1') end, 'parallel.exec: child 1', 'boom in join')

-- 2: receive raises, after the data the child sent before failing.
l[2]:exec(function()
   parallel.parent:send('last words')
   error('boom in receive')
end)
H.eq(l[2]:receive(), 'last words', 'data sent before the failure')
msg = H.raises('receive from a child whose code raised', function() l[2]:receive() end,
   'parallel.receive: child 2', 'failed: ', 'boom in receive', 'stack traceback')

-- 3: sync raises and still forgets the child.
l[3]:exec(function() error('boom in sync') end)
H.eq(parallel.nchildren, 3, 'nchildren before the failing sync')
H.raises('sync on a child whose code raised', function() l[3]:sync() end,
   'parallel.sync: child 3', 'failed: ', 'boom in sync')
H.eq(parallel.nchildren, 2, 'nchildren after the failing sync')
H.eq(parallel.children[3], nil, 'a child whose sync raised is forgotten')
H.assert_gone(l[3].unixid, 'a child whose sync raised')

-- 4: string code that does not compile.
local s = parallel.fork()
s:exec('local x = = 1')
H.raises('join on a child whose string code did not compile', function() s:join() end,
   'parallel.join: child 4', 'failed')

-- The failed children's processes end; syncing them raises and forgets them.
H.raises('sync of failed children', function() parallel.sync({ l[1], l[2], s }) end, 'failed')
H.eq(parallel.nchildren, 0, 'nchildren after syncing the failed children')
for _, c in ipairs({ l[1], l[2], s }) do
   H.assert_gone(c.unixid, 'a failed child after sync')
end

-- Killed with SIGKILL while running code: the next receive names the child and the signal.
local k = parallel.fork()
k:exec(function() parallel.parent:receive() end)
os.execute('kill -9 ' .. k.unixid)
H.raises('receive from a child killed with SIGKILL', function() k:receive() end,
   'parallel.receive: child 5', 'signal 9')
H.raises('join on a child killed with SIGKILL', function() k:join() end, 'parallel.join: child 5', 'signal 9')
H.raises('sync of a child killed with SIGKILL', function() k:sync() end, 'child 5', 'signal 9')
H.eq(parallel.nchildren, 0, 'nchildren after syncing a killed child')

-- Exiting with a status in its code.
local x = parallel.fork()
x:exec(function() os.exit(3) end)
H.raises('receive from a child that exited', function() x:receive() end, 'parallel.receive: child 6', 'status 3')
H.raises('exec on a child that exited', function() x:exec('y = 1') end, 'parallel.exec: child 6', 'status 3')
H.raises('sync of a child that exited', function() x:sync() end, 'child 6', 'status 3')

-- join/receive on a child whose code returned: an error, not a hang.
local d = parallel.fork()
d:exec(function() parallel.parent:send('only one') end)
H.eq(d:receive(), 'only one', 'the one message')
H.raises('receive from a child whose code returned', function() d:receive() end,
   'parallel.receive: child 7')
H.raises('join on a child whose code returned', function() d:join() end, 'parallel.join: child 7', 'finished')
-- ... and on a child never given code.
local idle = parallel.fork()
H.raises('join on a child never given code', function() idle:join() end, 'parallel.join: child 8')
H.raises('receive from a child never given code', function() idle:receive() end, 'parallel.receive: child 8')
-- Still usable afterwards, and the join that raised left nothing behind for the next yield.
d:exec(function() parallel.parent:send(parallel.yield()) end)
d:join('still fine')
H.soft('the next yield after a join that raised on a finished child', function()
   H.eq(d:receive(), 'still fine', 'a child works after join/receive raised on it')
end)

-- Killed while idle: once the process is gone, receive says it died of signal 9.
os.execute('kill -9 ' .. idle.unixid)
H.assert_gone(idle.unixid, 'a child killed with SIGKILL')
H.soft('receive from an idle child killed with SIGKILL names the signal', function()
   H.raises('receive from an idle child killed with SIGKILL', function() idle:receive() end,
      'parallel.receive: child 8', 'signal 9')
end)
pcall(idle.sync, idle)

-- Synced and closed children: every call names the child.
d:sync()
H.raises('exec on a synced child', function() d:exec('y = 1') end, 'parallel.exec: child 7', 'synced')
H.raises('receive from a synced child', function() d:receive() end, 'parallel.receive: child 7', 'synced')
H.raises('join on a synced child', function() d:join() end, 'parallel.join: child 7', 'synced')
H.raises('send to a synced child', function() d:send(1) end, 'parallel.send: child 7', 'synced')
H.soft('sync of a synced child names the child', function()
   H.raises('sync of a synced child', function() d:sync() end, 'parallel.sync: child 7')
end)
local cl = parallel.fork()
cl:exec(function() parallel.parent:receive() end)
parallel.close()
H.raises('exec on a closed child', function() cl:exec('y = 1') end, 'parallel.exec: child 9', 'closed')
H.raises('receive from a closed child', function() cl:receive() end, 'parallel.receive: child 9', 'closed')
H.raises('send to a closed child', function() cl:send('x') end, 'parallel.send: child 9', 'closed')
H.raises('join on a closed child', function() cl:join() end, 'parallel.join: child 9', 'closed')

-- Values that cannot be sent: an error in the sender, and both sides keep working.
local e = parallel.fork()
e:exec(function()
   local co = coroutine.create(function() end)
   local ok1, m1 = pcall(parallel.parent.send, parallel.parent, co)
   local ok2, m2 = pcall(parallel.parent.send, parallel.parent, { io.stdout })
   parallel.parent:send({ ok1, m1, ok2, m2 })
   while true do
      local v = parallel.parent:receive()
      if v == 'stop' then break end
      parallel.parent:send(v)
   end
end)
local child_side = e:receive()
H.eq(child_side[1], false, 'parent:send of a coroutine raises in the child')
H.check(tostring(child_side[2]):find('parallel.parent:send', 1, true), 'the child\'s error names the call: %s', tostring(child_side[2]))
H.eq(child_side[3], false, 'parent:send of io.stdout raises in the child')
H.raises('send of a coroutine', function() e:send(coroutine.create(function() end)) end, 'parallel.send: ')
H.raises('send of io.stdout', function() e:send(io.stdout) end, 'parallel.send: ')
H.raises('send of a table holding a coroutine', function() e:send({ a = { coroutine.create(print) } }) end,
   'parallel.send: ')
H.raises('group send of io.stdout', function() parallel.children:send(io.stdout) end, 'parallel.send: ')
e:send('still working')
H.eq(e:receive(), 'still working', 'the child works after failed sends')
H.eq(select('#', e:receive('noblock')), 0, 'a failed send sent nothing')
e:send('stop')

-- Wrong argument shapes: errors naming the call.
H.raises('fork(1)', function() parallel.fork(1) end, 'parallel.fork')
H.raises('nfork(\'x\')', function() parallel.nfork('x') end, 'parallel.nfork')
H.raises('nfork()', function() parallel.nfork() end, 'parallel.nfork')
H.raises('nfork(-1)', function() parallel.nfork(-1) end, 'parallel.nfork')
H.raises('nfork({\'x\'})', function() parallel.nfork({ 'x' }) end, 'parallel.nfork')
H.raises('sfork(-1)', function() parallel.sfork(-1) end, 'parallel.sfork')
H.raises('sfork(\'x\')', function() parallel.sfork('x') end, 'parallel.sfork')
H.raises('exec(child, 42)', function() parallel.exec(e, 42) end, 'parallel.exec')
H.raises('exec(child)', function() parallel.exec(e) end, 'parallel.exec')
H.raises('exec of a C function', function() parallel.exec(e, os.time) end, 'parallel.exec')
H.raises('exec(42, code)', function() parallel.exec(42, 'x = 1') end, 'parallel.exec')
H.raises('join(child, {})', function() parallel.join(e, {}) end, 'parallel.join')
H.raises('join(nil)', function() parallel.join(nil) end, 'parallel.join')
H.raises('send(nil, 1)', function() parallel.send(nil, 1) end, 'parallel.send')
H.raises('receive(42)', function() parallel.receive(42) end, 'parallel.receive')
H.raises('sync(\'x\')', function() parallel.sync('x') end, 'parallel.sync')
H.raises('yield at top level', function() parallel.yield() end, 'parallel.yield')
H.raises('calibrate without remotes', function() parallel.calibrate() end,
   'calibration can only be done after addremote() is called')
H.raises('addremote({cores=2})', function() parallel.addremote({ cores = 2 }) end, 'parallel.addremote', 'ip')
H.raises('addremote()', function() parallel.addremote() end, 'parallel.addremote')
H.eq(parallel.nchildren, 1, 'nchildren after the argument errors (no child forked)')
-- Nothing was forked by the failed calls: the next child gets the next id.
local after = parallel.fork()
H.eq(after.id, 11, 'id after the failed calls')
after:exec(function() parallel.parent:send('fine') end)
H.eq(after:receive(), 'fine', 'forking works after the argument errors')
parallel.children:sync()
H.eq(parallel.nchildren, 0, 'nchildren at the end')

-- addremote: the global `remotes` is parallel.remotes (no forking needed).
H.eq(rawget(_G, 'remotes'), nil, 'no remotes before addremote')
parallel.addremote({ ip = 'hosta', cores = 2 }, { ip = 'hostb', cores = 3, lua = '/opt/th', protocol = 'rsh' })
H.check(rawget(_G, 'remotes') ~= nil, 'addremote creates the global remotes')
H.eq(parallel.remotes, remotes, 'parallel.remotes is the global remotes')
H.eq(#remotes, 2, '#remotes')
H.eq(remotes.cores, 5, 'remotes.cores')
H.eq(remotes[1].ip, 'hosta', 'remotes[1].ip')
H.eq(remotes[2].lua, '/opt/th', 'remotes[2].lua')
H.eq(remotes[2].protocol, 'rsh', 'remotes[2].protocol')
parallel.addremote({ { ip = 'hostc' } })
H.eq(#remotes, 3, '#remotes after a nested addremote (appended)')
H.eq(remotes[3].cores, 1, 'default cores')
H.eq(remotes.cores, 6, 'remotes.cores after the nested addremote')
H.eq(parallel.remotes, remotes, 'still the same table')
local mine = { cores = 0 }
parallel.remotes = mine
H.eq(rawget(_G, 'remotes'), mine, 'setting parallel.remotes sets the global')
parallel.remotes = nil
H.eq(rawget(_G, 'remotes'), nil, 'clearing parallel.remotes clears the global')
H.finish()
