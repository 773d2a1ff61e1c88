-- bench_cluster.lua: the luatorch cluster measured as benches/cluster_peers.py measures
-- ipyparallel and Dask (run them side by side with benches/cluster_compare.sh):
--
--    th examples/bench_cluster.lua [ENGINES [ROUNDS]]
--
-- Starts its own cluster (`thcluster start -n ENGINES --profile P --daemonize`, thcluster found
-- next to th, else on PATH, or named by $THCLUSTER) under a fresh profile and stops it at the end,
-- also when a measurement fails (benches/cluster_harness.lua). Prints
-- `peer=luatorch test=TEST value=NUMBER` lines and comment lines starting with '#'. The tests and
-- timing rules are those of cluster_peers.py:
--   start_ms            thcluster start until all engines answer (once; informative)
--   roundtrip_us        one blocking lbv:apply of an empty function; the median of ROUNDS calls
--                       after WARMUP calls
--   map1_ms, map1_tasks_per_s      lbv:map of the identity over 10^4 small integers, chunksize 1
--   map100_ms, map100_tasks_per_s  the same with chunksize 100
--                       each the best of MAP_REPS runs after one 100-item warm-up map (the machine
--                       is shared: the least disturbed run is the fairest estimate for every side)
--   push64_ms           dv:push of a 64 MiB FloatTensor to every engine; the best of PUSH_REPS
--                       pushes after one warm-up push
-- MAP_REPS and PUSH_REPS come from the environment (default 3), as for the peers.
local sys = require 'sys'

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local harness = dofile(here .. '/../benches/cluster_harness.lua')
local emit = harness.emit

local engines = tonumber(arg[1]) or 2
local rounds = tonumber(arg[2]) or 200
local N_MAP = 10000
local PUSH_ELEMENTS = 64 * 2 ^ 20 / 4
local WARMUP = 20
local MAP_REPS = tonumber(os.getenv('MAP_REPS')) or 3
local PUSH_REPS = tonumber(os.getenv('PUSH_REPS')) or 3

local function median(v)
   table.sort(v)
   return v[math.floor((#v + 1) / 2)]
end

print(('# rounds=%d map_reps=%d push_reps=%d'):format(rounds, MAP_REPS, PUSH_REPS))
local ok, err = pcall(harness.run, engines, function(c, start_seconds)
   emit('start_ms', start_seconds * 1e3)
   local lbv = c:load_balanced_view()
   local dv = c:direct_view()

   -- (a) round trip of an empty function
   local empty = function() end
   for _ = 1, WARMUP do lbv:apply(empty) end
   local per = {}
   for r = 1, rounds do
      local t = sys.clock()
      lbv:apply(empty)
      per[r] = sys.clock() - t
   end
   emit('roundtrip_us', median(per) * 1e6)

   -- (b) map of 10^4 small integers, chunksize 1 and 100
   local identity = function(x) return x end
   local items, warm = {}, {}
   for i = 1, N_MAP do items[i] = i end
   for i = 1, 100 do warm[i] = i end
   for _, k in ipairs({ 1, 100 }) do
      assert(#lbv:map(identity, warm, { chunksize = k }) == 100, 'warm-up map: wrong length')
      local best = math.huge
      for _ = 1, MAP_REPS do
         local t = sys.clock()
         local out = lbv:map(identity, items, { chunksize = k })
         best = math.min(best, sys.clock() - t)
         -- Checked outside the timed span, as the peers' side does.
         assert(#out == N_MAP, ('map chunksize %d: %d results for %d items'):format(k, #out, N_MAP))
         for i = 1, N_MAP do
            if out[i] ~= i then error(('map chunksize %d: result %d is %s'):format(k, i, tostring(out[i]))) end
         end
      end
      emit(('map%d_ms'):format(k), best * 1e3)
      emit(('map%d_tasks_per_s'):format(k), N_MAP / best)
   end

   -- (c) 64 MiB pushed to every engine
   local t64 = torch.FloatTensor(PUSH_ELEMENTS):fill(1.5)
   dv:push({ t = t64 })
   local best = math.huge
   for _ = 1, PUSH_REPS do
      local t = sys.clock()
      dv:push({ t = t64 })
      best = math.min(best, sys.clock() - t)
   end
   emit('push64_ms', best * 1e3)
end)
if not ok then error('bench_cluster: ' .. tostring(err), 0) end
