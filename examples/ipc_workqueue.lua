-- ipc_workqueue.lua: a pool of workers fed through a named ipc.workqueue. The main thread (the
-- queue's creator) writes questions and reads answers; in the workers the directions are
-- reversed. A nil question tells a worker to stop.
--
-- Run:  th examples/ipc_workqueue.lua [workers] [jobs]      (defaults: 4 workers, 100 jobs)

local ipc = require 'libipc'

local nworkers = tonumber(arg[1]) or 4
local njobs = tonumber(arg[2]) or 100

local q = ipc.workqueue('examples.jobs')

local workers = ipc.map(nworkers, function(mapid)
   local ipc = require 'libipc'
   local q = ipc.workqueue('examples.jobs')
   local done = 0
   while true do
      local job = q:read()
      if job == nil then break end
      -- the "work": the norm of a random matrix of the requested size
      local m = torch.randn(job.size, job.size)
      q:write({ id = job.id, norm = m:norm(), by = mapid })
      done = done + 1
   end
   return done
end)

for i = 1, njobs do
   q:write({ id = i, size = 10 + i % 20 })
end
local by = {}
for _ = 1, njobs do
   local answer = q:read()
   by[answer.by] = (by[answer.by] or 0) + 1
end
for _ = 1, nworkers do q:write(nil) end
local counts = { workers:join() }
for i = 1, nworkers do
   print(string.format('worker %d answered %d jobs', i, counts[i]))
end
q:close()
