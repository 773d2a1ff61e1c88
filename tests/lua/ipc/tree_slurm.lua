-- One task of `srun -n N th ipc/tree_slurm.lua DIR` (tests/ipc_tree.rs, under a private Slurm):
-- the tasks join an ipc.SlurmTree (address file in DIR) and check allreduce and scatter results.
-- Each task prints "task <procid> of <ntasks>: ok sum <sum>" when every check passed.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'tree_helpers'

local dir = arg[1]
local procid = tonumber(os.getenv('SLURM_PROCID'))
local ntasks = tonumber(os.getenv('SLURM_NTASKS'))
local tree = require 'ipc.SlurmTree'(dir)
local me = tree.nodeIndex
local sum

H.run({
   { 'indexes', function()
      H.eq(me, procid + 1, 'nodeIndex')
      H.eq(tree.numNodes, ntasks, 'numNodes')
      H.eq(tree.gpu, tonumber(os.getenv('SLURM_LOCALID')) + 1, 'gpu (one task per GPU)')
   end },
   { 'numbers', function()
      local c
      sum, c = tree.allReduce(me)
      H.eq(sum, H.tri(ntasks), 'sum')
      H.eq(c, ntasks, 'contributors')
   end },
   { 'tensors and tables', function()
      local r = tree.allReduce({ t = torch.Tensor(100):fill(me), k = 2 * me }, function(a, b) return a + b end)
      H.all(r.t, H.tri(ntasks), 'tensor')
      H.eq(r.k, 2 * H.tri(ntasks), 'number')
   end },
   { 'uneven steps', function()
      for i = 1, me do
         local v, c = tree.allReduce(1)
         H.eq(v, ntasks - i + 1, 'count at step ' .. i)
         H.eq(c, ntasks - i + 1, 'contributors at step ' .. i)
      end
      local _, c = tree.allReduce(nil)
      H.eq(c, 0, 'contributors at the end')
   end },
   { 'scatter', function()
      H.eq(tree.scatter(me == 1 and 'from task 0' or ''), 'from task 0', 'value')
   end },
   { 'the address file is gone', function()
      local jobid, stepid = os.getenv('SLURM_JOB_ID'), os.getenv('SLURM_STEP_ID')
      local f = io.open(string.format('%s/slurm.%s.%s.server', dir, jobid, stepid))
      if f then f:close() end
      H.check(f == nil, 'the address file is still there after every task connected')
   end },
}, 'task ' .. tostring(procid) .. ' ', true)
print(string.format('task %d of %d: ok sum %d', procid, ntasks, sum))
tree.close()
