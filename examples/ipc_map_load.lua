-- ipc_map_load.lua: ipc.map loading files in parallel. Each thread gets a fresh Lua state (torch
-- and ipc loaded, none of our globals), the list of files, and its thread index as the last
-- argument; it loads every nth file with torch.load and returns what it read. join() gives
-- every thread's results in thread order. The tensors come back shared, not copied.
--
-- Run:  th examples/ipc_map_load.lua [threads] [files]      (defaults: 4 threads, 16 files)

local ipc = require 'libipc'
local paths = require 'paths'

local nthreads = tonumber(arg[1]) or 4
local nfiles = tonumber(arg[2]) or 16

-- Some files to load: one tensor each, saved in Torch's own format.
local dir = paths.tmpname()
os.remove(dir)
paths.mkdir(dir)
local files = {}
for i = 1, nfiles do
   files[i] = paths.concat(dir, string.format('part%03d.t7', i))
   torch.save(files[i], torch.FloatTensor(1000):fill(i))
end

local timer = torch.Timer()
local loaded = { ipc.map(nthreads, function(files, nthreads, mapid)
   -- Thread `mapid` takes files mapid, mapid + nthreads, ...
   local mine = {}
   for i = mapid, #files, nthreads do
      mine[#mine + 1] = torch.load(files[i])
   end
   return mine
end, files, nthreads):join() }

local total, count = 0, 0
for _, tensors in ipairs(loaded) do
   for _, t in ipairs(tensors) do
      total = total + t:sum()
      count = count + 1
   end
end
print(string.format('%d threads loaded %d files in %.1f ms; sum of all elements %.0f (expected %.0f)',
   nthreads, count, timer:time().real * 1000, total, 1000 * nfiles * (nfiles + 1) / 2))

for _, f in ipairs(files) do os.remove(f) end
paths.rmdir(dir)
