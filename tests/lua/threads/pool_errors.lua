-- Errors: in jobs (with the worker's traceback), in end callbacks, in init functions, and every
-- wrong argument. The pool goes on after each.
local threads = require 'threads'

local pool = threads.Threads(2)
pool:addjob(function()
   function failing_function() error('boom in the worker') end
   failing_function()
end)
local ok, err = pcall(pool.synchronize, pool)
assert(not ok)
assert(err:find('^%[thread %d callback%]'), err)
assert(err:find('boom in the worker'), err)
assert(err:find("in function 'failing_function'"), err)

-- The pool still works, and an end callback's error is told apart.
pool:addjob(function() return 1 end, function() error('boom in the end callback') end)
ok, err = pcall(pool.synchronize, pool)
assert(not ok and err:find('^%[thread %d endcallback%]') and err:find('boom in the end callback'), err)
local v
pool:addjob(function() return 42 end, function(x) v = x end)
pool:synchronize()
assert(v == 42)

-- Something that cannot be packed is refused at addjob, and nothing is queued.
pool:addjob(function() return io.type(io.stdout) end, function(kind) v = kind end)
pool:synchronize() -- globals are not packed: io is the worker's own
assert(v == 'file')
local handle = io.stdout
ok, err = pcall(pool.addjob, pool, function() return handle end)
assert(not ok and err:find('threads.Threads:addjob'), err)
assert(not pool:hasjob())
-- A result that cannot be packed is the job's error.
pool:addjob(function() return io.stdout end)
ok, err = pcall(pool.synchronize, pool)
assert(not ok and err:find('callback%]') and err:find('Unwritable object'), err)

-- Wrong arguments.
local function fails(pattern, f, ...)
   local ok2, e = pcall(f, ...)
   assert(not ok2, 'expected an error matching ' .. pattern)
   assert(tostring(e):find(pattern), tostring(e))
end
fails('function callback expected, got number', pool.addjob, pool, 5)
fails('endcallback expected, got string', pool.addjob, pool, function() end, 'x')
fails('at least 1', threads.Threads, 0)
fails('got string', threads.Threads, 'four')
fails('init #2 must be a function', threads.Threads, 1, function() end, 3)
fails('boolean expected', pool.specific, pool, 'yes')
pool:specific(true)
fails('thread index %(1 to 2%) expected in specific mode', pool.addjob, pool, function() end)
fails('thread index %(1 to 2%) expected in specific mode', pool.addjob, pool, 3, function() end)
fails('thread index', pool.acceptsjob, pool)
pool:specific(false)

-- An error in an init function: the constructor raises it.
fails('init failed here', threads.Threads, 2, function() error('init failed here') end)

-- terminate runs every open job, then raises the first error.
local count = 0
pool:addjob(function() error('first') end)
-- (two jobs on two threads: addjob never waits, so the error can only come from terminate)
pool:addjob(function() end, function() count = count + 1 end)
ok, err = pcall(pool.terminate, pool)
assert(not ok and err:find('first'), err)
assert(count == 1, count)
assert(not pool:isrunning())
print('ok')
