-- Drives a cluster that thcluster started (by ssh, srun or sbatch): waits for N engines, runs a
-- direct apply on each and a load-balanced map, and prints what tests/cluster_launch.rs checks:
--   where <engine id> <SLURM_JOB_ID or -> <ssh or ->   (from each engine itself)
--   engine <id> <host> <pid>                            (from the controller's status)
-- Arguments: profile, number of engines.
local cluster = require 'cluster'

local profile, n = arg[1], tonumber(arg[2])
local c = cluster.client(profile)
local ids = c:wait_for_engines(n, 60)
assert(#ids == n, 'expected ' .. n .. ' engines, got ' .. #ids)

local dv = c:direct_view()
local here = dv:apply(function()
   return string.format('%d %s %s', __engineid, os.getenv('SLURM_JOB_ID') or '-',
      os.getenv('SSH_CONNECTION') and 'ssh' or '-')
end)
assert(#here == n, 'the direct apply reached ' .. #here .. ' engines')
for _, line in ipairs(here) do
   print('where ' .. line)
end

local lbv = c:load_balanced_view()
local list = {}
for i = 1, 20 do
   list[i] = i
end
local squares = lbv:map(function(x) return x * x end, list, { chunksize = 3 })
for i = 1, 20 do
   assert(squares[i] == i * i, 'map: item ' .. i .. ' is ' .. tostring(squares[i]))
end

local s = c:status()
assert(#s == n, 'status lists ' .. #s .. ' engines')
for _, e in ipairs(s) do
   print(string.format('engine %d %s %d', e.id, e.host, e.pid))
end
c:close()
print('ok')
