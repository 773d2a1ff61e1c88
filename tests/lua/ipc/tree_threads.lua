-- torch-ipc's test_Tree.lua usage (reference Part C): the root in the main thread with a server on
-- a free port, the other nodes in ipc.map threads, each with a client to the root, calling the
-- Tree constructor directly. Sums, arrays, tensors in bases 2, 4 and 8, uneven steps (every node
-- ends with allReduce(nil, reduce, zero)), and a tree torch-ipc could not build.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'tree_helpers'
local ipc = require 'libipc'
local Tree = require 'ipc.Tree'

-- njobs nodes; every node computes makeValue(nodeIndex) and allReduces it with reduce; returns the
-- root's result and the workers' results (in node order).
local function testAllReduce(njobs, base, makeValue, reduce, nsteps)
   local server, port = ipc.server('127.0.0.1', 0)
   local m = ipc.map(njobs - 1, function(njobs, base, port, makeValue, reduce, nsteps, mapid)
      local ipc = require 'libipc'
      require 'torch'
      local Tree = require 'ipc.Tree'
      local client = ipc.client('127.0.0.1', port)
      local jobid = mapid + 1
      local tree = Tree(jobid, njobs, base, nil, client, '127.0.0.1')
      local results = {}
      for s = 1, nsteps(jobid) do
         local v = tree.allReduce(makeValue(jobid), reduce)
         results[s] = torch.isTensor(v) and v:sum() or (type(v) == 'table' and v[1]) or v
      end
      tree.allReduce(nil, reduce, function(x) return torch.isTensor(x) and x:zero() or 0 end)
      tree.close()
      return results
   end, njobs, base, port, makeValue, reduce, nsteps)
   server:clients(njobs - 1, function() end)
   local tree = Tree(1, njobs, base, server, nil, '127.0.0.1', port)
   local results = {}
   for s = 1, nsteps(1) do
      local v = tree.allReduce(makeValue(1), reduce)
      results[s] = torch.isTensor(v) and v:sum() or (type(v) == 'table' and v[1]) or v
   end
   tree.allReduce(nil, reduce, function(x) return torch.isTensor(x) and x:zero() or 0 end)
   local others = { m:join() }
   tree.close()
   server:close()
   return results, others
end

local function one() return 1 end

H.run({
   { 'numbers base 2, 8 nodes', function()
      local r, o = testAllReduce(8, 2, function(j) return j end, function(a, b) return a + b end, one)
      H.eq(r[1], 36, 'root')
      for i = 1, 7 do H.eq(o[i][1], 36, 'node ' .. (i + 1)) end
   end },
   { 'arrays base 2, 4 nodes', function()
      local r = testAllReduce(4, 2, function(j) return { j, 2 * j } end, function(a, b) return a + b end, one)
      H.eq(r[1], 10, 'first element')
   end },
   { 'tensors base 4 and 8, 8 nodes', function()
      for _, base in ipairs({ 4, 8 }) do
         local r, o = testAllReduce(8, base, function(j) return torch.Tensor(10):fill(j) end,
            function(a, b) return a + b end, one)
         H.eq(r[1], 360, 'root, base ' .. base)
         for i = 1, 7 do H.eq(o[i][1], 360, 'node ' .. (i + 1) .. ', base ' .. base) end
      end
   end },
   { 'uneven steps, 4 nodes', function()
      local r, o = testAllReduce(4, 2, function(j) return j end, function(a, b) return a + b end,
         function(j) return j end)
      local all = { r }
      for i = 1, 3 do all[i + 1] = o[i] end
      for j = 1, 4 do
         for i = 1, j do
            local want = 0
            for k = i, 4 do want = want + k end
            H.eq(all[j][i], want, string.format('node %d step %d', j, i))
         end
      end
   end },
   { '7 nodes in base 3 (torch-ipc left nodes 6 and 7 out)', function()
      local r, o = testAllReduce(7, 3, function(j) return j end, function(a, b) return a + b end, one)
      H.eq(r[1], 28, 'root')
      for i = 1, 6 do H.eq(o[i][1], 28, 'node ' .. (i + 1)) end
   end },
}, 'tree_threads ')
