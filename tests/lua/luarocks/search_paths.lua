-- `search_paths.lua DIR`: DIR holds onlyhere.lua, which nothing but this script's package.path
-- reaches. ipc.map threads and parallel children must find it as this process does (run by
-- tests/luarocks.rs under th and under a stock luajit).
local dir = assert(arg[1], 'usage: search_paths.lua DIR')
package.path = dir .. '/?.lua;' .. package.path
local ipc = require 'libipc'
local parallel = require 'parallel'

local a, b = ipc.map(2, function() return require 'onlyhere' end):join()
assert(a == 'only here' and b == 'only here', 'map threads: ' .. tostring(a) .. ', ' .. tostring(b))

local child = parallel.fork()
child:exec(function() parallel.parent:send(require 'onlyhere') end)
local got = child:receive()
assert(got == 'only here', 'a parallel child: ' .. tostring(got))
parallel.close()
io.write('search paths ok\n')
