-- In every kind of worker state, `require 'torch'` leaves what it leaves in Torch7: `torch`,
-- `paths` and `include` as globals (dcgan.torch's data loader calls paths.dofile in its
-- threads). Each probe returns the types it sees.
local function probe()
   require 'torch'
   return table.concat({ type(torch), type(paths), type(include), type(paths and paths.dofile) }, ' ')
end
local want = 'table table function function'
local function check(kind, got)
   if got ~= want then error(kind .. ': after require "torch" the worker sees ' .. tostring(got) .. ', want ' .. want, 2) end
end

-- threads
local threads = require 'threads'
local pool = threads.Threads(1)
local got
pool:addjob(probe, function(r) got = r end)
pool:synchronize()
pool:terminate()
check('threads', got)

-- ipc.map
local ipc = require 'ipc'
check('ipc.map', ipc.map(1, probe):join())

-- the scheduler's threads and processes
local scheduler = require 'scheduler'
for _, kind in ipairs { 'threads', 'processes' } do
   local s = scheduler[kind](1)
   s:add_task(0, function() return probe() end)
   local r = s:get_results()
   s:shutdown()
   check('scheduler.' .. kind, r[1])
end

-- parallel's children
local parallel = require 'parallel'
local child = parallel.fork()
child:exec(function()
   local parallel = require 'parallel'
   require 'torch'
   parallel.parent:send(table.concat({ type(torch), type(paths), type(include), type(paths and paths.dofile) }, ' '))
end)
check('parallel child', child:receive())
parallel.close()
print('ok')
