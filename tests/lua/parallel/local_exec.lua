-- exec of functions (upvalues re-bound to the child's globals by name) and of strings, fork's extra
-- args in parallel.args and as `...`, exec again once the code returned, join/yield (single and
-- group, on nfork lists and on parallel.children).
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'local_helpers'
require 'parallel'

-- Extra fork args: numbers, strings, tables, booleans, and nil holes.
local c = parallel.fork(nil, nil, nil, 1.5, 'two', { x = { 3 }, 'list' }, true, false, nil, 'after', nil)
c:exec(function(...)
   local a = parallel.args
   parallel.parent:send({
      n = select('#', ...),
      dots = { ... },
      args = a,
      nargs = #a,
      same = a[2] == select(2, ...),
   })
end)
local got = c:receive()
H.eq(got.n, 8, 'select("#", ...) keeps the nil holes, trailing nil included')
H.eq(got.dots[1], 1.5, '...[1]')
H.eq(got.dots[2], 'two', '...[2] (a string)')
H.eq(got.dots[3].x[1], 3, '...[3].x[1]')
H.eq(got.dots[3][1], 'list', '...[3][1]')
H.eq(got.dots[4], true, '...[4]')
H.eq(got.dots[5], false, '...[5]')
H.eq(got.dots[6], nil, '...[6] (a hole)')
H.eq(got.dots[7], 'after', '...[7]')
H.eq(got.args[1], 1.5, 'parallel.args[1]')
H.eq(got.args[2], 'two', 'parallel.args[2]')
H.eq(got.args[3].x[1], 3, 'parallel.args[3]')
H.eq(got.args[4], true, 'parallel.args[4]')
H.eq(got.args[5], false, 'parallel.args[5]')
H.eq(got.args[6], nil, 'parallel.args[6]')
H.eq(got.args[7], 'after', 'parallel.args[7]')
H.eq(got.args.n, nil, 'parallel.args has no n field')
H.eq(got.same, true, 'parallel.args and ... hold the same values')

-- Exec again once the code returned: a string this time. Globals persist between execs; the
-- string gets the fork args as `...` too.
c:exec([[
   marker = 'the child\'s marker'
   counter = (counter or 0) + 1
   local first, second = ...
   parallel.parent:send({ first = first, second = second, n = select('#', ...), counter = counter })
]])
got = c:receive()
H.eq(got.first, 1.5, 'string code: first of ...')
H.eq(got.second, 'two', 'string code: second of ...')
H.eq(got.n, 8, 'string code: select("#", ...)')
H.eq(got.counter, 1, 'counter after the first string exec')

-- Upvalues are re-bound to the child's globals of the same name (nil when there is none).
local marker = 'the parent\'s marker'
local unknown_local = 'only in the parent'
local torch = require 'torch'
c:exec(function()
   parallel.parent:send({
      marker = marker,
      unknown = unknown_local,
      torch = type(torch) == 'table' and torch.typename(torch.FloatTensor(2)),
   })
end)
got = c:receive()
H.eq(got.marker, 'the child\'s marker', 'upvalue `marker` bound to the child\'s global')
H.eq(got.unknown, nil, 'upvalue with no global of its name in the child')
H.eq(got.torch, 'torch.FloatTensor', 'upvalue `torch` bound to the child\'s torch')
H.eq(marker, 'the parent\'s marker', 'the parent\'s local is untouched')

-- A third exec: state kept, code run once more.
c:exec('counter = counter + 1; parallel.parent:send(counter)')
H.eq(c:receive(), 2, 'counter after the second string exec')

-- join/yield: each join's message is what yield returns; the default is ''; numbers become strings.
c:exec(function()
   while true do
      local m = parallel.yield()
      if m == 'break' then break end
      parallel.parent:send({ m })
   end
   parallel.parent:send('loop ended')
end)
c:join('hello')
H.eq(c:receive()[1], 'hello', 'yield returns the join message')
c:join()
H.eq(c:receive()[1], '', 'yield returns \'\' for join()')
c:join(42)
H.eq(c:receive()[1], '42', 'yield returns a number as a string')
c:join('')
H.eq(c:receive()[1], '', 'yield returns \'\' for join(\'\')')
-- A join never reads data: two joins in a row, then two receives.
c:join('a')
c:join('b')
H.eq(c:receive()[1], 'a', 'first of two joins')
H.eq(c:receive()[1], 'b', 'second of two joins')
parallel.join(c, 'break')
H.eq(c:receive(), 'loop ended', 'the loop ended on \'break\'')

-- Group join on an nfork list: every child meets the parent; the results keyed 1..n.
local l = parallel.nfork(3)
l:exec(function()
   local m = parallel.yield()
   parallel.parent:send(m .. ' ' .. parallel.id)
   m = parallel.yield()
   parallel.parent:send(m .. ' ' .. parallel.id)
end)
l:join('first')
local r = l:receive()
H.eq(H.keys(r), '1,2,3', 'keys of an nfork list receive')
for i = 1, 3 do
   H.eq(r[i], 'first ' .. l[i].id, 'group join on the list, child ' .. i)
end

-- Group join on parallel.children (the first child too): keyed by child id.
c:exec(function()
   parallel.parent:send(parallel.yield() .. ' ' .. parallel.id)
end)
H.eq(table.concat(H.listed(), ','), '1,2,3,4', 'children ids')
parallel.children:join('second')
r = parallel.children:receive()
H.eq(H.keys(r), '1,2,3,4', 'keys of a parallel.children receive')
for id = 1, 4 do
   H.eq(r[id], 'second ' .. id, 'group join on parallel.children, child ' .. id)
end

-- parallel.join on a list works as the method does; every code has returned, so exec works again
-- on the whole group.
parallel.exec(l, function()
   parallel.parent:send(parallel.yield() .. '!')
end)
parallel.join(l, 'third')
r = parallel.receive(l)
for i = 1, 3 do
   H.eq(r[i], 'third!', 'parallel.join(list), child ' .. i)
end
parallel.children:exec('parallel.parent:send(parallel.id)')
r = parallel.children:receive()
H.eq(H.keys(r), '1,2,3,4', 'keys after exec on parallel.children')

parallel.children:sync()
H.eq(parallel.nchildren, 0, 'nchildren at the end')
H.finish()
