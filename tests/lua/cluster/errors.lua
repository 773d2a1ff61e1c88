-- Wrong arguments give errors that name the function. arg[1]: the profile.
local cluster = require 'cluster'
local function fails(pattern, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error matching ' .. pattern)
   assert(tostring(err):match(pattern), 'got: ' .. tostring(err))
end
fails('cluster.client: expected a profile name', cluster.client, 42)
fails("no cluster 'nosuchprofile' is running", cluster.client, 'nosuchprofile')
fails('bad profile name', cluster.client, '../etc')
local c = cluster.client(arg[1])
c:wait_for_engines(1, 30)
fails('cluster.wait_for_engines: 1 of 5 engines joined within 0.2 s', c.wait_for_engines, c, 5, 0.2)
local dv, lbv = c:direct_view(), c:load_balanced_view()
fails('cluster.direct_view: there is no engine 999', c.direct_view, c, { 999 })
fails('cluster.execute: expected code', dv.execute, dv, 42)
fails('cluster.push: expected a table', dv.push, dv, 'x')
fails('cluster.push: global names must be strings', dv.push, dv, { 1 })
fails("cluster.push: unknown option 'blok'", dv.push, dv, { x = 1 }, { blok = false })
fails('cluster.apply: expected a function', lbv.apply, lbv, 'f')
fails('cluster.map: chunksize must be a positive integer', lbv.map, lbv, print, { 1 }, { chunksize = 0 })
fails('cluster.map: expected a list', lbv.map, lbv, print, 3)
fails('cluster.scatter: expected a tensor or a list', dv.scatter, dv, 'x', 3)
fails('the timeout must be a number', lbv.map, lbv, print, { 1 }, { timeout = -1 })
-- A value that cannot travel (a coroutine) is refused before anything is sent.
fails('cluster.push: cannot send the task: .*thread', dv.push, dv, { co = coroutine.create(print) })
-- A result that cannot travel back fails its task, and the engine lives on.
fails('cannot be sent back', lbv.apply, lbv, function() return coroutine.create(print) end)
assert(lbv:apply(function() return 1 end) == 1)
-- Code that does not compile.
fails('failed on engine %d+: .*%[cluster execute%]', dv.execute, dv, 'this is not lua')
c:close()
fails('closed', c.ids, c)
print('ok')
