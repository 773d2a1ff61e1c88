-- Forking local children: fork's handle, nfork in every shape, sfork without remotes, run, ids
-- 1..n, the children/nchildren bookkeeping, a child's view of itself, and a child that forks its
-- own child.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
local p = require 'parallel'

H.eq(p, parallel, 'require returns the global parallel')
H.eq(parallel.id, 0, 'parallel.id at top level')
H.eq(parallel.parent.id, -1, 'parallel.parent.id at top level')
H.eq(parallel.nchildren, 0, 'nchildren before forking')
H.eq(#H.listed(), 0, 'children before forking')
H.eq(rawget(_G, 'remotes'), nil, 'remotes before addremote')

-- fork(): one child, connected when fork returns.
local c = parallel.fork()
H.eq(c.id, 1, 'first id')
H.eq(type(c.unixid), 'number', 'type of unixid')
H.check(H.alive(c.unixid), 'the child process %d is running', c.unixid)
H.eq(c.ip, nil, 'ip of a local child')
H.eq(c.speed, 1, 'speed')
H.eq(parallel.children[1], c, 'children[1]')
H.eq(parallel.nchildren, 1, 'nchildren after fork')
for _, m in ipairs({ 'join', 'sync', 'send', 'receive', 'exec' }) do
   H.eq(c[m], parallel[m], 'child method ' .. m)
   H.eq(parallel.children[m], parallel[m], 'children method ' .. m)
end

-- What the child sees: its id, its parent's id, no children, and its pid is the handle's unixid.
c:exec(function(...)
   local f = io.open('/proc/self/stat')
   local pid = tonumber(f:read('*l'):match('^(%d+)'))
   f:close()
   parallel.parent:send({
      id = parallel.id,
      parent = parallel.parent.id,
      nchildren = parallel.nchildren,
      pid = pid,
      args = select('#', ...),
      typ = type(parallel.args),
   })
end)
local seen = c:receive()
H.eq(seen.id, 1, 'parallel.id in the child')
H.eq(seen.parent, 0, 'parallel.parent.id in the child')
H.eq(seen.nchildren, 0, 'nchildren in the child')
H.eq(seen.pid, c.unixid, 'unixid is the pid of the child th')
H.eq(seen.args, 0, 'no fork args: select("#", ...)')
H.eq(seen.typ, 'table', 'parallel.args with no fork args')

-- nfork(3): a list 1..3 with the group methods.
local l3 = parallel.nfork(3)
H.eq(#l3, 3, '#nfork(3)')
H.eq(l3[1].id .. ',' .. l3[2].id .. ',' .. l3[3].id, '2,3,4', 'ids of nfork(3)')
for _, m in ipairs({ 'join', 'sync', 'send', 'receive', 'exec' }) do
   H.eq(l3[m], parallel[m], 'nfork list method ' .. m)
end
for i = 1, 3 do
   H.eq(parallel.children[l3[i].id], l3[i], 'children entry of nfork child ' .. i)
   H.eq(l3[i].speed, 1, 'speed of nfork child')
   H.eq(l3[i].ip, nil, 'ip of nfork child')
   H.check(H.alive(l3[i].unixid), 'nfork child %d is running', i)
end
H.eq(parallel.nchildren, 4, 'nchildren after nfork(3)')

-- nfork({2}, {1}) and nfork({{2}, {1}}).
local l21 = parallel.nfork({ 2 }, { 1 })
H.eq(#l21, 3, '#nfork({2}, {1})')
H.eq(l21[1].id .. ',' .. l21[2].id .. ',' .. l21[3].id, '5,6,7', 'ids of nfork({2}, {1})')
local lnest = parallel.nfork({ { 2 }, { 1 } })
H.eq(#lnest, 3, '#nfork({{2}, {1}})')
H.eq(lnest[1].id .. ',' .. lnest[2].id .. ',' .. lnest[3].id, '8,9,10', 'ids of nfork({{2}, {1}})')
H.eq(lnest.exec, parallel.exec, 'nested nfork list has the group methods')
H.eq(parallel.nchildren, 10, 'nchildren after the nforks')

-- nfork(0): an empty list, nothing forked.
local l0 = parallel.nfork(0)
H.eq(#l0, 0, '#nfork(0)')
H.eq(parallel.nchildren, 10, 'nchildren after nfork(0)')

-- sfork without remotes: local children.
local s = parallel.sfork(2)
H.eq(#s, 2, '#sfork(2)')
H.eq(s[1].id .. ',' .. s[2].id, '11,12', 'ids of sfork(2)')
H.eq(s[1].ip, nil, 'sfork child is local')
H.eq(s[1].speed, 1, 'speed of an sfork child')
H.eq(s.exec, parallel.exec, 'sfork list has the group methods')

-- run(code, ...): a child already running the code, with the args.
local r = parallel.run(function(...)
   parallel.parent:send({ id = parallel.id, n = select('#', ...), a = ..., args = parallel.args })
end, 'x', 2)
H.eq(r.id, 13, 'id of run')
H.eq(parallel.children[13], r, 'children[13] is the child of run')
local rv = r:receive()
H.eq(rv.id, 13, 'parallel.id in the child of run')
H.eq(rv.n, 2, 'number of args of run')
H.eq(rv.a, 'x', 'first arg of run')
H.eq(rv.args[2], 2, 'parallel.args[2] of run')

-- ids 1..13, every one listed once; each child answers with its own id (keyed by id).
H.eq(table.concat(H.listed(), ','), '1,2,3,4,5,6,7,8,9,10,11,12,13', 'children ids')
H.eq(parallel.nchildren, 13, 'nchildren')
parallel.children:exec(function()
   parallel.parent:send(parallel.id * 100)
end)
local answers = parallel.children:receive()
H.eq(H.keys(answers), '1,2,3,4,5,6,7,8,9,10,11,12,13', 'keys of children:receive()')
for id = 1, 13 do
   H.eq(answers[id], id * 100, 'answer of child ' .. id)
end

-- Distinct processes.
local pids = {}
for _, id in ipairs(H.listed()) do
   local pid = parallel.children[id].unixid
   H.check(not pids[pid], 'pid %d given twice', pid)
   pids[pid] = true
end

parallel.children:sync()
H.eq(parallel.nchildren, 0, 'nchildren after syncing all')
H.eq(#H.listed(), 0, 'children after syncing all')
for pid in pairs(pids) do
   H.check(not H.alive(pid), 'process %d survived sync', pid)
end

-- Nested: a child forks its own child, which reports to it; the child relays that to us.
local n = parallel.fork()
H.eq(n.id, 14, 'ids keep counting after sync')
n:exec(function()
   local g = parallel.fork()
   g:exec(function()
      parallel.parent:send({ id = parallel.id, parent = parallel.parent.id, v = 'from the grandchild' })
   end)
   local got = g:receive()
   parallel.parent:send({ relay = got, nchildren = parallel.nchildren, gid = g.id, gpid = g.unixid })
   g:sync()
   parallel.parent:send(parallel.nchildren)
   -- A second grandchild left running when this code returns: it ends with the code.
   local g2 = parallel.fork()
   parallel.parent:send(g2.unixid)
end)
local relay = n:receive()
H.eq(relay.relay.v, 'from the grandchild', 'value relayed from the grandchild')
H.eq(relay.relay.id, 1, 'the grandchild is its parent\'s child 1')
H.eq(relay.relay.parent, 14, 'the grandchild\'s parent.id')
H.eq(relay.nchildren, 1, 'the child\'s nchildren with a grandchild')
H.eq(relay.gid, 1, 'id of the grandchild in the child')
H.check(relay.gpid ~= n.unixid and relay.gpid ~= H.pid(), 'the grandchild is a process of its own')
H.eq(n:receive(), 0, 'the child\'s nchildren after syncing the grandchild')
H.check(not H.alive(relay.gpid), 'the synced grandchild %d is gone', relay.gpid)
local g2pid = n:receive()
H.assert_gone(g2pid, 'a grandchild left running when the child\'s code returned')
H.check(H.alive(n.unixid), 'the child outlives its code')
n:sync()
H.eq(parallel.nchildren, 0, 'nchildren at the end')
H.finish()
