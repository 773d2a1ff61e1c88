-- Controller and engine memory over many tasks: the cluster must stay flat.
--
--    th benches/cluster_memory.lua [ENGINES [TASKS [BATCH [CHUNK]]]]
--
-- Defaults 2 engines, 10^6 tasks in batches of 10^5 (one lbv:map each, chunksize 1: every item
-- is a task of its own through the controller, about 2 minutes). Each task
-- ignores its item and returns true (so that the result count can be checked). Resident memory
-- comes from c:status() (engine records' rss_kb, status().controller.rss_kb), or from
-- /proc/<pid>/status where a record has a pid but no rss_kb. Prints
-- `peer=luatorch test=TEST value=NUMBER` lines: controller_rss_{start,first_batch,end}_kb and
-- engines_rss_{start,first_batch,end}_kb (summed over engines), the growth from start to end and
-- from the first batch to the end (the first batch fills pools and caches once; growth after it
-- is what a leak looks like), and memory_tasks_per_s; a comment line per batch.
local sys = require 'sys'

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local harness = dofile(here .. '/cluster_harness.lua')
local emit = harness.emit

local engines = tonumber(arg[1]) or 2
local tasks = tonumber(arg[2]) or 1000000
local batch = tonumber(arg[3]) or 100000
local chunk = tonumber(arg[4]) or 1

local function rss_of(record)
   if type(record) ~= 'table' then return nil end
   return tonumber(record.rss_kb) or harness.rss_kb(record.pid)
end

-- { controller = KiB or nil, engines = sum of KiB or nil, tasks = sum, each = 'id:KiB ...' }
local function memory(c)
   local st = c:status()
   local r = { controller = rss_of(st.controller), engines = 0, tasks = 0, each = {} }
   for _, e in ipairs(st) do
      local kb = rss_of(e)
      if kb and r.engines then r.engines = r.engines + kb else r.engines = nil end
      r.tasks = r.tasks + (tonumber(e.tasks) or 0)
      r.each[#r.each + 1] = ('%s:%s'):format(tostring(e.id), tostring(kb))
   end
   if #st == 0 then r.engines = nil end
   r.each = table.concat(r.each, ' ')
   return r
end

local function emit_kb(name, kb)
   if kb then emit(name, kb) else print('# ' .. name .. ' n/a (no rss_kb and no readable pid)') end
end

local function diff(a, b)
   return a and b and b - a
end

local ok, err = pcall(harness.run, engines, function(c)
   local lbv = c:load_balanced_view()
   local task = function() return true end
   local items = {}
   for i = 1, batch do items[i] = i end

   local start = memory(c)
   print(('# start: controller=%s engines=%s (%s)'):format(tostring(start.controller), tostring(start.engines), start.each))
   local first
   local done, t0 = 0, sys.clock()
   while done < tasks do
      local n = math.min(batch, tasks - done)
      if n < batch then
         items = {}
         for i = 1, n do items[i] = i end
      end
      local t = sys.clock()
      local out = lbv:map(task, items, { chunksize = chunk })
      local dt = sys.clock() - t
      assert(#out == n, ('batch of %d tasks gave %d results'):format(n, #out))
      done = done + n
      local m = memory(c)
      first = first or m
      print(('# %d tasks: %.0f tasks/s controller=%s engines=%s (%s)'):format(done, n / dt, tostring(m.controller),
         tostring(m.engines), m.each))
      io.stdout:flush()
   end
   local elapsed = sys.clock() - t0
   local stop = memory(c)
   print(('# tasks counted by the engines: %d'):format(stop.tasks))
   emit('memory_tasks_per_s', done / elapsed)
   emit_kb('controller_rss_start_kb', start.controller)
   emit_kb('controller_rss_first_batch_kb', first.controller)
   emit_kb('controller_rss_end_kb', stop.controller)
   emit_kb('controller_rss_growth_kb', diff(start.controller, stop.controller))
   emit_kb('controller_rss_growth_after_first_kb', diff(first.controller, stop.controller))
   emit_kb('engines_rss_start_kb', start.engines)
   emit_kb('engines_rss_first_batch_kb', first.engines)
   emit_kb('engines_rss_end_kb', stop.engines)
   emit_kb('engines_rss_growth_kb', diff(start.engines, stop.engines))
   emit_kb('engines_rss_growth_after_first_kb', diff(first.engines, stop.engines))
end)
if not ok then error('cluster_memory: ' .. tostring(err), 0) end
