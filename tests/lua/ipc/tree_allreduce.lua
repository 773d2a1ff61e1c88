-- One node of an allreduce among several th processes on this machine (tests/ipc_tree.rs starts
-- them all at once):
--    th ipc/tree_allreduce.lua NODE NUMNODES KEY BASE [ROOTPORT]
-- joined by ipc.LocalhostTree with the discovery key KEY ('ppid': its default, the parent's pid),
-- or, when KEY is 'static', by ipc.StaticTree with the root on 127.0.0.1:ROOTPORT. Every node runs
-- the same checks and prints "ok" when all passed; the first failure ends the process, so that
-- the others see it leave instead of waiting for it.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'tree_helpers'

local node, n, key, base = tonumber(arg[1]), tonumber(arg[2]), arg[3], tonumber(arg[4])
local tree
if key == 'static' then
   tree = require 'ipc.StaticTree'(node, n, '127.0.0.1', 0, '127.0.0.1', tonumber(arg[5]), base)
else
   if key == 'ppid' then key = nil end
   tree = require 'ipc.LocalhostTree'(node, n, key, base)
end
local me = tree.nodeIndex
local sum = H.tri(n)

local function add(a, b) return a + b end

H.run({
   { 'indexes', function()
      H.eq(tree.numNodes, n, 'numNodes')
      H.eq(me, node, 'nodeIndex (the one asked for)')
   end },
   { 'numbers', function()
      local v, c = tree.allReduce(me, add)
      H.eq(v, sum, 'sum')
      H.eq(c, n, 'contributors')
   end },
   { 'default reduce', function()
      local v = tree.allReduce(2 * me)
      H.eq(v, 2 * sum, 'sum')
   end },
   { 'tensors in place', function()
      local t = torch.Tensor(10):fill(me)
      local r, c = tree.allReduce(t, function(a, b) return a:add(b) end)
      H.all(r, sum, 'sum')
      H.eq(c, n, 'contributors')
      H.all(t, sum, 'the tensor given, filled in place')
   end },
   { 'tensors, new results', function()
      local t = torch.FloatTensor(4, 3):fill(me)
      local r = tree.allReduce(t, function(a, b) return a + b end)
      H.eq(torch.type(r), 'torch.FloatTensor', 'type')
      H.all(r, sum, 'sum')
   end },
   { 'non-contiguous tensors', function()
      local base = torch.Tensor(6, 5):fill(-1)
      local view = base:t() -- 5x6, not contiguous
      view:fill(me)
      local r = tree.allReduce(view, function(a, b) return a:add(b) end)
      H.all(r, sum, 'sum')
      H.all(base, sum, 'the viewed storage')
      local cols = torch.Tensor(4, 8):fill(0):narrow(2, 3, 4) -- non-contiguous rows
      cols:fill(me)
      H.all(tree.allReduce(cols, function(a, b) return a:add(b) end), sum, 'narrowed')
   end },
   { 'tables walked', function()
      local v = {
         a = me,
         b = { x = 2 * me, y = torch.Tensor(3):fill(me), z = { torch.LongTensor(2):fill(3 * me) } },
         [1] = 10 * me,
         [2] = torch.FloatTensor(2, 2):fill(me),
         [true] = 5,
      }
      local r, c = tree.allReduce(v, function(a, b) return a + b end)
      H.eq(r, v, 'the same table back')
      H.eq(c, n, 'contributors')
      H.eq(r.a, sum, 'a')
      H.eq(r.b.x, 2 * sum, 'b.x')
      H.all(r.b.y, sum, 'b.y')
      H.all(r.b.z[1], 3 * sum, 'b.z[1]')
      H.eq(r[1], 10 * sum, '[1]')
      H.all(r[2], sum, '[2]')
      H.eq(r[true], 5 * n, '[true]')
   end },
   { 'custom reduce', function()
      local v = tree.allReduce(me, function(a, b) return math.max(a, b) end)
      H.eq(v, n, 'max')
      local lo = tree.allReduce(torch.Tensor(3):fill(me), function(a, b) return a:cmin(b) end)
      H.all(lo, 1, 'cmin')
      -- strings reduce too: every node's name once, in some order
      local names = tree.allReduce('<' .. me .. '>', function(a, b) return a .. b end)
      for k = 1, n do H.check(names:find('<' .. k .. '>', 1, true), 'node %d missing from %s', k, names) end
      H.eq(#names, #table.concat((function() local t = {} for k = 1, n do t[k] = '<' .. k .. '>' end return t end)()), 'length')
      -- a reduce that keeps the received value (the buffer is not handed out)
      local last = tree.allReduce({ torch.Tensor(2):fill(me) }, function(_, b) return b end)
      H.check(last[1]:min() >= 1 and last[1]:max() <= n, 'kept one node\'s value')
   end },
   { 'scatter', function()
      local v = tree.scatter(me == 1 and 42 or -me)
      H.eq(v, 42, 'number')
      local t = torch.Tensor(7):fill(me == 1 and 3.5 or 0)
      local r = tree.scatter({ t, s = me == 1 and 'root' or 'x' })
      H.all(r[1], 3.5, 'tensor')
      H.all(t, 3.5, 'filled in place')
      H.eq(r.s, 'root', 'string')
   end },
   { 'uneven numbers of steps', function()
      -- node j reduces j times, then runs out; step i has the nodes j >= i.
      for i = 1, me do
         local v, c = tree.allReduce(me, add, function() return 0 end)
         local want = 0
         for k = i, n do want = want + k end
         H.eq(v, want, 'sum at step ' .. i)
         H.eq(c, n - i + 1, 'contributors at step ' .. i)
      end
      local v, c = tree.allReduce(nil, add, function() return 0 end)
      H.eq(v, 0, 'the last sum (all zeros)')
      H.eq(c, 0, 'contributors at the end')
   end },
   { 'uneven steps with tables of tensors and default zeros', function()
      local t = { torch.Tensor(4):fill(me), k = me }
      for i = 1, n - me + 1 do
         local r, c = tree.allReduce(t, function(a, b) return a + b end)
         -- nodes with n - j + 1 >= i take part: j <= n - i + 1
         local m = n - i + 1
         H.all(r[1], H.tri(m), 'tensor sum at step ' .. i)
         H.eq(r.k, H.tri(m), 'number sum at step ' .. i)
         H.eq(c, m, 'contributors at step ' .. i)
         t = { torch.Tensor(4):fill(me), k = me }
      end
      local r = tree.allReduce(nil, function(a, b) return a + b end)
      H.all(r[1], 0, 'zeros at the end')
      H.all(t[1], me, 'the last value given is not zeroed')
   end },
   { 'still in step afterwards', function()
      H.eq(tree.allReduce(1), n, 'count')
   end },
}, 'node ' .. tostring(node) .. ' ', true)
tree.close()
