-- bench_data_parallel.lua: updates per second of examples/data_parallel_train.lua for the seed's
-- small model and the LeNet-style convnet with 1, 2 and 4 workers, and the speed-up against 1.
--
--    th examples/bench_data_parallel.lua [--cpu] [--workers 1,2,4] [--models small,conv]
--                                        [--steps-small 1000] [--steps-conv 150] [--dir /tmp]
--
-- Each model runs with the same samples per update whatever the number of workers (--globalbatch:
-- 4 for small, 64 for conv, split among the workers), so an update is the same work and the
-- speed-up is the ratio of updates/s against 1 worker (strong scaling). Every run is a separate
-- trainer process; its summary line gives updates/s (steps over the slowest worker's time in the
-- training loop, set-up excluded), the compute and allreduce times per update and the sync share.
-- The trainer runs on the GPU(s) when there are any (all workers of one GPU share it), unless
-- --cpu. A run that fails stops the benchmark with its output.
local cmd = torch.CmdLine()
cmd:option('--cpu', false, 'run the trainer on CPU even when a GPU is there')
cmd:option('--workers', '1,2,4', 'worker counts, comma separated')
cmd:option('--models', 'small,conv', 'models, comma separated')
cmd:option('--steps-small', 1000, 'updates per run of the small model')
cmd:option('--steps-conv', 150, 'updates per run of the convnet')
cmd:option('--batch-small', 4, 'samples per update (all workers together) of the small model')
cmd:option('--batch-conv', 64, 'samples per update (all workers together) of the convnet')
cmd:option('--dir', '/tmp', 'where the runs write their model and log')
cmd:option('--extra', '', 'more options for every trainer run (e.g. "--gpus 1")')
cmd:option('--runtimeout', 120, 'seconds a run may take before it is killed (coreutils timeout)')
local opt = cmd:parse(arg or {})

local th = arg[0] -- th's own path
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local trainer = here .. '/data_parallel_train.lua'

local function list(s)
   local out = {}
   for w in s:gmatch('[^,]+') do out[#out + 1] = w end
   return out
end

local function quote(s)
   return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

local function run(model, workers)
   local steps = model == 'small' and opt['steps-small'] or opt['steps-conv']
   local batch = model == 'small' and opt['batch-small'] or opt['batch-conv']
   local command = table.concat({
      'timeout -k 5', opt.runtimeout, quote(th), quote(trainer), '--quiet', opt.cpu and '--cpu' or '', '--model', model, '--workers', workers,
      '--steps', steps, '--globalbatch', batch, '--dir', quote(opt.dir), '--name', 'bench_dp_' .. model,
      opt.extra, '2>&1',
   }, ' ')
   local p = assert(io.popen(command))
   local text = p:read('*a')
   local ok, _, status = p:close()
   local summary = text:match('summary: ([^\n]*)')
   if not summary or (ok ~= true and ok ~= 0) then
      error(string.format('the run failed (%s):\n%s\n%s', tostring(status), command, text), 0)
   end
   local r = {}
   for k, v in summary:gmatch('(%S+)=(%S+)') do r[k] = tonumber((v:gsub('%%$', ''))) or v end
   return r
end

print(string.format('%-6s %-7s %-6s %8s %12s %9s %12s %11s %9s %9s', 'model', 'device', 'workers',
   'b/worker', 'updates/s', 'speed-up', 'samples/s', 'compute ms', 'sync ms', 'overhead'))
for _, model in ipairs(list(opt.models)) do
   local base
   for _, w in ipairs(list(opt.workers)) do
      local r = run(model, tonumber(w))
      base = base or r['updates/s']
      print(string.format('%-6s %-7s %-7d %8d %12.1f %8.2fx %12.1f %11.3f %9.3f %8.1f%%', model, r.device,
         r.workers, r['batch/worker'], r['updates/s'], r['updates/s'] / base, r['samples/s'], r.compute_ms,
         r.sync_ms, r.overhead))
      io.stdout:flush()
   end
end
