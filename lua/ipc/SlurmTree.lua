-- ipc.SlurmTree: an ipc.Tree among the tasks of a Slurm job step (`srun th script.lua`), from the
-- SLURM_* variables srun gives every task (torch-ipc's README, the Tree family).
--
--    local tree = require 'ipc.SlurmTree'([dir [, tasksPerGpu [, base]]])
--
-- Task SLURM_PROCID is node SLURM_PROCID + 1 of SLURM_NTASKS. Task 0 listens on a free port of its
-- host and writes "host:port" to <dir>/slurm.<job id>.<step id>.server (dir defaults to
-- $HOME/.torch and must be shared by the job's hosts); the other tasks read it and connect. The
-- file is removed once every task has connected. The tree links the tasks of each host among
-- themselves, then the first tasks of the hosts. `tree.gpu` is the 1-based GPU a task should use
-- when tasksPerGpu (default 1) tasks of a host share each GPU.
--
-- Differences from torch-ipc: the step id is part of the file name (a job's second srun does not
-- read the first one's address), the host grouping uses the hosts the tasks report (not a block
-- distribution assumed from the task counts), and a single-host job listens on 127.0.0.1.
local paths = require 'paths'
local DiscoveredTree = require 'ipc.DiscoveredTree'
local Tree = require 'ipc.Tree'

local function fail(msg)
   error('ipc.SlurmTree: ' .. msg, 0)
end

local function envNumber(...)
   for _, name in ipairs({ ... }) do
      local v = tonumber(os.getenv(name) or '')
      if v then return v, name end
   end
   return nil
end

local function hostname()
   local p = io.popen('hostname 2>/dev/null')
   local h = p and p:read('*l')
   if p then p:close() end
   if not h or h == '' then
      local f = io.open('/proc/sys/kernel/hostname')
      h = f and f:read('*l')
      if f then f:close() end
   end
   if not h or h == '' then fail('cannot tell this host\'s name (hostname printed nothing)') end
   return h
end

-- Links the nodes of `list` (node indexes) into one tree rooted at list[1].
local function linkOver(list, base, link)
   local n = #list
   if n < 2 then return end
   Tree.allPairs(base, n, 0, Tree.depthFor(n, base) - 1, function(p, c) link(list[p], list[c]) end)
end

-- buildTree for Tree: a tree per host, then one among the hosts' first nodes.
local function hostTree(base, numNodes, _, _, link, addresses)
   local groups, order = {}, {}
   for k = 1, numNodes do
      local h = addresses[k] and addresses[k].host or '?'
      if not groups[h] then
         groups[h] = {}
         order[#order + 1] = h
      end
      table.insert(groups[h], k)
   end
   local leaders = {}
   for _, h in ipairs(order) do
      linkOver(groups[h], base, link)
      leaders[#leaders + 1] = groups[h][1]
   end
   linkOver(leaders, base, link)
end

return function(dir, tasksPerGpu, base)
   local procid = envNumber('SLURM_PROCID')
   local ntasks = envNumber('SLURM_NTASKS', 'SLURM_NPROCS')
   if not procid or not ntasks then
      fail('not a task of a Slurm job step (SLURM_PROCID and SLURM_NTASKS are unset): start the script with srun')
   end
   local nnodes = envNumber('SLURM_JOB_NUM_NODES', 'SLURM_NNODES') or 1
   local jobid = os.getenv('SLURM_JOB_ID') or os.getenv('SLURM_JOBID')
   if not jobid or jobid == '' then fail('SLURM_JOB_ID is unset: start the script with srun') end
   local stepid = os.getenv('SLURM_STEP_ID') or os.getenv('SLURM_STEPID')
   tasksPerGpu = tasksPerGpu or 1
   if type(tasksPerGpu) ~= 'number' or tasksPerGpu < 1 then
      fail('tasksPerGpu must be a positive number, got ' .. tostring(tasksPerGpu))
   end
   if dir == nil then
      local home = os.getenv('HOME')
      if not home or home == '' then fail('HOME is unset: pass the directory for the address file') end
      dir = home .. '/.torch'
   end
   if type(dir) ~= 'string' then fail('dir must be a string, got ' .. type(dir)) end

   local tasksPerHost = math.ceil(ntasks / math.max(1, nnodes))
   local localid = envNumber('SLURM_LOCALID') or (procid % tasksPerHost)
   local host = nnodes == 1 and '127.0.0.1' or hostname()
   local nodeIndex = procid + 1
   local name = 'slurm.' .. jobid .. (stepid and ('.' .. stepid) or '') .. '.server'
   local file = dir .. '/' .. name

   local function publish(h, port)
      if not paths.dirp(dir) then paths.mkdir(dir) end
      local tmp = string.format('%s.%s.tmp', file, tostring(procid))
      local f, err = io.open(tmp, 'w')
      if not f then fail('cannot write ' .. tmp .. ': ' .. tostring(err)) end
      f:write(string.format('%s:%d\n', h, port))
      f:close()
      local ok, rerr = os.rename(tmp, file)
      if not ok then
         os.remove(tmp)
         fail('cannot write ' .. file .. ': ' .. tostring(rerr))
      end
   end
   local function unpublish() os.remove(file) end
   local function query()
      local f = io.open(file, 'r')
      if not f then return nil end
      local text = f:read('*a') or ''
      f:close()
      local h, port = text:match('^([^\n]+):(%d+)\n')
      return h, tonumber(port)
   end

   local tree
   if ntasks == 1 then
      tree = require 'ipc.NullTree'()
   elseif nodeIndex == 1 then
      local server, port = require('libipc').server(host, 0)
      local ok, err = pcall(function()
         publish(host, port)
         server:clients(ntasks - 1, function() end)
      end)
      unpublish()
      if not ok then
         server:close()
         error(err, 0)
      end
      local okt, t = pcall(Tree, 1, ntasks, base, server, nil, host, port, hostTree)
      if not okt then
         server:close()
         error(t, 0)
      end
      tree = t
   else
      tree = DiscoveredTree(nodeIndex, ntasks, host, 0, nil, query, base)
   end
   tree.gpu = math.floor(localid / tasksPerGpu) + 1
   tree.tasksPerHost = tasksPerHost
   return tree
end
