-- nfork with remote entries ({n, ip=, protocol=, lua=}), flat and nested, mixed with local children;
-- list-wide exec/join/send/receive/sync, and parallel.children's methods.
local H = require './remote_helpers'
require 'parallel'
parallel.ip = '127.0.0.1'

local function check_list(list, ips, what)
   H.check(type(list) == 'table', '%s returns a table, got %s', what, type(list))
   H.eq(#list, #ips, what .. ': number of children')
   for i, ip in ipairs(ips) do
      H.check(type(list[i]) == 'table' and type(list[i].id) == 'number', '%s[%d] is a child', what, i)
      H.eq(list[i].ip, ip or nil, string.format('%s[%d].ip', what, i))
   end
end

local list = parallel.nfork(H.remote({2}), H.remote({1, ip = 'testhost2'}))
check_list(list, {'testhost', 'testhost', 'testhost2'}, 'nfork(entry, entry)')
H.eq(parallel.nchildren, 3, 'nchildren')
for i = 1, 3 do H.eq(list[i].id, i, 'ids in fork order') end

list:exec(function()
   local pid = tonumber(io.open('/proc/self/stat'):read('*l'):match('^(%d+)'))
   parallel.parent:send({id = parallel.id, pid = pid})
   while parallel.yield() ~= 'break' do
      local x = parallel.parent:receive()
      parallel.parent:send(x:clone():add(parallel.id))
   end
end)
local hello = list:receive()
local pids = {}
for i = 1, 3 do
   H.check(type(hello[i]) == 'table', 'receive(list)[%d] is the child\'s table', i)
   H.eq(hello[i].id, list[i].id, 'receive(list) is keyed like the list')
   H.check(not pids[hello[i].pid], 'distinct remote processes')
   pids[hello[i].pid] = true
end

local x = torch.range(1, 6)
for _ = 1, 3 do
   list:join()
   list:send(x)
   local replies = list:receive()
   for i = 1, 3 do
      H.check(replies[i]:equal(x + i), 'child %d answered x + id, got\n%s', i, tostring(replies[i]))
   end
end
list:join('break')
list:sync()
H.eq(parallel.nchildren, 0, 'nchildren after sync(list)')
H.eq(H.nchildren_listed(), 0, 'children listed after sync(list)')
for pid in pairs(pids) do H.check(H.wait_gone(pid, 5), 'remote th %d gone after sync', pid) end

-- Nested form, with a local entry (no ip) after the remote one.
local l2 = parallel.nfork({H.remote({1, ip = 'testhost3'}), {1}})
check_list(l2, {'testhost3', false}, 'nfork({entry, entry})')
H.eq(l2[1].id, 4, 'ids go on after earlier children')
parallel.children:exec(function() parallel.parent:send({id = parallel.id}); parallel.yield() end)
local got = parallel.children:receive()
for _, c in ipairs(l2) do
   H.check(type(got[c.id]) == 'table' and got[c.id].id == c.id, 'children:receive() is keyed by child id (%d)', c.id)
end
parallel.children:join()
parallel.children:sync()
H.eq(parallel.nchildren, 0, 'nchildren after children:sync()')
print('ok')
