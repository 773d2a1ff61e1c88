-- The scheduler's API on one backend (arg[1]: threads or processes): results in order, reused
-- callables, map, the three containers, errors naming the task, back-pressure, init, with, shutdown.
local scheduler = require 'scheduler'
local kind = assert(arg[1], 'usage: api.lua threads|processes')
local make = scheduler[kind]

local function fails(pattern, f, ...)
   local ok, e = pcall(f, ...)
   assert(not ok, 'expected an error matching ' .. pattern)
   assert(tostring(e):find(pattern), tostring(e))
end

local s = make(2)
assert(s:n_open_tasks() == 0)
local square = function(x) return x * x end
for i = 1, 1000 do s:add_task(i, i == 1 and square or nil) end
local r = s:get_results()
assert(#r == 1000, #r)
for i = 1, 1000 do assert(r[i] == i * i, i) end
-- The container starts again empty.
s:add_task(3)
r = s:get_results()
assert(#r == 1 and r[1] == 9)

-- Many short tasks: large chunks, back from the two workers in any order, each result in its
-- place; numbers keep every bit both ways, and a chunk of numbers with another value among them
-- still travels.
local identity = function(x) return x end
local n = 200000
for i = 1, n do s:add_task(i / 3, identity) end
r = s:get_results()
assert(#r == n, #r)
for i = 1, n do assert(r[i] == i / 3, i) end
local specials = { 0.1, -0.0, 1e308, -math.huge, math.huge, 2 ^ 53 + 2, -7.25, 0 / 0 }
for i = 1, 5000 do s:add_task(specials[i % #specials + 1], identity) end
r = s:get_results()
for i = 1, 5000 do
   local want, got = specials[i % #specials + 1], r[i]
   if want ~= want then
      assert(got ~= got, i)
   else
      assert(got == want and 1 / got == 1 / want, i)
   end
end
for i = 1, 5000 do s:add_task(i == 2500 and 'x' or (i == 4000 and true or i), identity) end
r = s:get_results()
for i = 1, 5000 do assert(r[i] == (i == 2500 and 'x' or (i == 4000 and true or i)), i) end
local doubled = s:map(function(x) return 2 * x end, (function()
   local l = {}
   for i = 1, n do l[i] = i end
   return l
end)())
assert(#doubled == n)
for i = 1, n do assert(doubled[i] == 2 * i, i) end

-- Two callables interleaved, tables and tensors as data and results.
local add = function(t) return t.a + t.b end
local norm = function(x) return x:norm() end
for i = 1, 50 do
   s:add_task({ a = i, b = 1 }, add)
   s:add_task(torch.Tensor({ 3, 4 }) * i, norm)
end
r = s:get_results()
for i = 1, 50 do
   assert(r[2 * i - 1] == i + 1)
   assert(math.abs(r[2 * i] - 5 * i) < 1e-9)
end

-- A new closure per task: every one runs (and the workers forget the old ones).
for i = 1, 300 do s:add_task(i, function(x) return x + i end) end
r = s:get_results()
for i = 1, 300 do assert(r[i] == 2 * i) end

-- A failing task: the others finish, then get_results names it, with its traceback.
for i = 1, 20 do
   s:add_task(i, function(x)
      if x == 7 or x == 9 then error('task data ' .. x .. ' is bad') end
      return x
   end)
end
local ok, err = pcall(s.get_results, s)
assert(not ok)
assert(err:find('task 7 failed %(and 1 more failed%)') and err:find('task data 7 is bad'), err)
assert(err:find('stack traceback'), err)
assert(s:n_open_tasks() == 0)
s:add_task(5, square)
assert(s:get_results()[1] == 25)
s:shutdown()
s:shutdown() -- twice is fine
fails('shut down', s.add_task, s, 1, square)
assert(tostring(s):find('shut down'))

-- map: the whole list at once (chunked as Pool.map chunks it), results in order; a failing
-- task raises once the others are done, naming it; the scheduler goes on; add_task's results
-- are not mixed in.
s = make(2, { results = 'unordered' })
local list = {}
for i = 1, 10000 do list[i] = i end
r = s:map(square, list)
assert(#r == 10000, #r)
for i = 1, 10000 do assert(r[i] == i * i, i) end
assert(#s:map(square, {}) == 0)
r = s:map(function(t) return t:sum() end, { torch.ones(3), torch.ones(5) })
assert(r[1] == 3 and r[2] == 5)
ok, err = pcall(s.map, s, function(x)
   if x == 4321 then error('map data ' .. x .. ' is bad') end
   return x
end, list)
assert(not ok and err:find('scheduler:map: task 4321 failed') and err:find('map data 4321 is bad'), err)
assert(s:n_open_tasks() == 0)
s:add_task(2, square)
fails('still open: call get_results first', s.map, s, square, list)
r = s:get_results()
assert(#r == 1 and r[1] == 4, #r)
fails('the callable must be a function', s.map, s, 3, list)
fails('a list of task data expected', s.map, s, square, 3)
s:shutdown()
fails('shut down', s.map, s, square, list)

-- Unordered: every result, in arrival order.
s = make(2, { results = 'unordered' })
for i = 1, 100 do s:add_task(i, square) end
r = s:get_results()
table.sort(r)
assert(#r == 100 and r[1] == 1 and r[100] == 10000)
s:shutdown()

-- Reduce on arrival: one value, memory flat however many tasks.
s = make(2, { results = function(acc, v) return acc + v end, initial = 0 })
for i = 1, 5000 do s:add_task(i, function(x) return x end) end
assert(s:get_results() == 5000 * 5001 / 2)
for i = 1, 10 do s:add_task(i) end
assert(s:get_results() == 55)
s:shutdown()

-- Back-pressure: never more open tasks than max_open.
s = make(2, { max_open = 3 })
for i = 1, 50 do
   s:add_task(i, square)
   assert(s:n_open_tasks() <= 3, s:n_open_tasks())
end
assert(#s:get_results() == 50)
s:shutdown()

-- init runs once in each worker before any task.
s = make(2, { init = function() scheduler_offset = 100 end })
for i = 1, 10 do s:add_task(i, function(x) return x + scheduler_offset end) end
r = s:get_results()
assert(r[1] == 101 and r[10] == 110)
s:shutdown()
fails('init failed in worker', make, 1, { init = function() error('no init for you') end })

-- with: the scheduler is shut down however the function ends.
local kept
local v = scheduler.with(make(1), function(sch)
   kept = sch
   sch:add_task(2, square)
   return sch:get_results()[1], 'second'
end)
assert(v == 4 and not kept.running)
ok, err = pcall(scheduler.with, make(1), function(sch)
   kept = sch
   error('inside with')
end)
assert(not ok and err:find('inside with') and not kept.running, err)

-- A progress bar while waiting.
s = make(2, { progress = true })
for i = 1, 20 do s:add_task(i, square) end
assert(#s:get_results() == 20)
s:shutdown()

-- Wrong arguments.
fails('number of workers', make, 0)
fails('number of workers', make, 'two')
fails("unknown option 'retry'", make, 1, { retry = 1 })
fails("results must be 'ordered'", make, 1, { results = 'sorted' })
fails('max_open must be a whole number', make, 1, { max_open = 0 })
fails('options must be a table', make, 1, 'fast')
s = make(1)
fails('no callable given', s.add_task, s, 1)
fails('the callable must be a function, got number', s.add_task, s, 1, 2)
fails('call it with a colon', s.add_task, 1, square)
s:shutdown()
fails('a scheduler expected', scheduler.with, {}, function() end)
fails('a profile name expected', scheduler.cluster, 42)
-- An argument error, however deep the check that finds it, is placed at the line that called the
-- scheduler, never inside luatorch's own files (also when pcall calls the function directly).
local here = debug.getinfo(1, 'S').short_src
for _, call in ipairs {
   { make, 'x' },
   { make, 2, { bogus = 1 } },
   { make, 2, { results = 'sideways' } },
   { scheduler.remote, {} },
   { scheduler.with, 1 },
} do
   local ok, e = pcall(unpack(call))
   assert(not ok and e:sub(1, #here + 1) == here .. ':' and e:find('scheduler%.'), tostring(e))
end
local s4 = make(1)
local ok4, e4 = pcall(s4.map, s4, 'not a function', { 1 })
assert(not ok4 and e4:sub(1, #here + 1) == here .. ':', e4)
s4:shutdown()
ok4, e4 = pcall(s4.map, s4, identity, { 1 })
assert(not ok4 and e4:sub(1, #here + 1) == here .. ':' and e4:find('shut down'), e4)
print('ok')

