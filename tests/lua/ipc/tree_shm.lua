-- One node of the shared-memory allreduce checks (tests/ipc_tree.rs starts them all at once):
--    th ipc/tree_shm.lua NODE NUMNODES KEY PATH
-- joined by ipc.LocalhostTree with discovery key KEY; PATH is the path the harness chose with
-- the environment: 'shm' (shared memory), 'ring' or 'tree' (the socket allreduce, its large
-- leaves by ring or pipelined tree: LUATORCH_TREE_SHM=0, LUATORCH_TREE_ALGO) or 'sockets' (the
-- message sockets only: LUATORCH_TREE_NET=0 as well). Every node runs the same checks and
-- prints "ok" when all passed; the root also prints "pid <its pid>" on stderr, for the harness
-- to look for leftovers in /dev/shm.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'tree_helpers'
local ipc = require 'libipc'

local node, n, key, path = tonumber(arg[1]), tonumber(arg[2]), arg[3], arg[4]
local tree = require 'ipc.LocalhostTree'(node, n, key)
local me = tree.nodeIndex
if me == 1 then io.stderr:write('pid ' .. ipc.getpid() .. '\n') end
local sum = H.tri(n)
local function max(a, b) return math.max(a, b) end

-- The same value on every node (checked over the sockets, with a reduce of our own).
local function same(x, what)
   local hi = tree.allReduce(x, max)
   local lo = -tree.allReduce(-x, max)
   H.check(hi == x and lo == x, '%s differs between nodes: here %s, in [%s, %s]', what, tostring(x), tostring(lo), tostring(hi))
end

-- Node k's pseudo-random floats, the same wherever they are made.
local function gen(k, size)
   local g = torch.Generator()
   torch.manualSeed(g, 1000 + k)
   return torch.FloatTensor(size):uniform(g, -1, 1)
end

local TYPES = { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' }

H.run({
   { 'path', function()
      H.eq(tree.sharedMemory, path == 'shm', 'tree.sharedMemory')
      H.eq(tree.socketAllreduce, path == 'ring' or path == 'tree', 'tree.socketAllreduce')
   end },
   { 'every tensor type', function()
      for _, ty in ipairs(TYPES) do
         local t = torch[ty .. 'Tensor'](37):fill(me)
         local r, c = tree.allReduce(t)
         H.check(r == t, '%s: the tensor given comes back', ty)
         H.all(t, sum, ty .. ' sum, in place')
         H.eq(c, n, ty .. ' contributors')
         -- and large enough for the ring or the pipelined tree, of an odd length
         local big = torch[ty .. 'Tensor'](70001):fill(me)
         tree.allReduce(big)
         H.all(big, sum, ty .. ' large sum')
      end
   end },
   { 'numbers', function()
      H.eq(tree.allReduce(me), sum, 'one number')
      H.eq(tree.allReduce(0.25 * me), 0.25 * sum, 'a fraction')
   end },
   { 'one value on some nodes, a table of it on others (the one-call and the table paths meet)', function()
      local t = torch.FloatTensor(5):fill(me)
      local r = tree.allReduce(me % 2 == 0 and { t } or t)
      H.all(t, sum, 'a tensor')
      H.check(me % 2 == 0 and r[1] == t or r == t, 'the value given comes back')
      local x = tree.allReduce(me % 2 == 1 and { me } or me)
      H.eq(me % 2 == 1 and x[1] or x, sum, 'a number')
   end },
   { 'uneven sizes, some over several chunks', function()
      for _, size in ipairs({ 1, 7, 1023, 8193, 300001, 3 * 262144 + 5 }) do
         local t = torch.range(1, size):mul(me)
         tree.allReduce(t)
         local want = torch.range(1, size):mul(sum)
         H.eq((t - want):abs():max(), 0, 'size ' .. size)
      end
   end },
   { 'float sums in node order, the same bits everywhere', function()
      for _, size in ipairs({ 5, 4099, 700001 }) do
         local t = gen(me, size)
         tree.allReduce(t)
         if path == 'shm' then
            local want = gen(1, size)
            for k = 2, n do want:add(gen(k, size)) end
            H.eq((t - want):abs():max(), 0, 'node-order sum of ' .. size)
         end
         same(t:double():sum(), 'the sum of ' .. size)
      end
   end },
   { 'tables of numbers and tensors of several types', function()
      local v = {
         a = me,
         b = torch.IntTensor(5):fill(me),
         c = { torch.DoubleTensor(3):fill(0.5 * me), 2 * me, torch.ByteTensor(1):fill(me) },
         d = torch.LongTensor(2, 3):fill(me),
         e = torch.FloatTensor(),
         f = torch.FloatTensor(0),
      }
      local r, c = tree.allReduce(v)
      H.check(r == v, 'the same table back')
      H.eq(c, n, 'contributors')
      H.eq(v.a, sum, 'a')
      H.all(v.b, sum, 'b')
      H.all(v.c[1], 0.5 * sum, 'c[1]')
      H.eq(v.c[2], 2 * sum, 'c[2]')
      H.all(v.c[3], sum, 'c[3]')
      H.all(v.d, sum, 'd')
      H.eq(v.e:nElement(), 0, 'e')
      H.eq(v.f:nElement(), 0, 'f')
   end },
   { 'non-contiguous tensors with the default sum', function()
      local base = torch.Tensor(6, 5):fill(-1)
      local view = base:t()
      view:fill(me)
      local r = tree.allReduce(view)
      H.all(r, sum, 'sum')
      H.all(base, sum, 'the viewed storage')
      local big = torch.FloatTensor(700, 800):fill(0):narrow(2, 3, 700)
      big:fill(me)
      H.all(tree.allReduce(big), sum, 'a large narrowed tensor')
   end },
   { 'one node with its own reduce function: every node takes the sockets', function()
      local t = torch.Tensor(9):fill(me)
      local r = tree.allReduce(t, me == 1 and function(a, b) return a:add(b) end or nil)
      H.all(r, sum, 'sum')
      H.eq(tree.allReduce(me, me == n and function(a, b) return a + b end or nil), sum, 'numbers')
   end },
   { 'values that differ in structure raise on every node', function()
      -- (the message sockets' tree has no such guarantee)
      if path == 'sockets' then return end
      local ok, err = pcall(tree.allReduce, torch.FloatTensor(me == 1 and 3 or 4):fill(1))
      H.check(not ok and tostring(err):find('differ in structure', 1, true), 'expected a structure error, got %s', tostring(err))
      -- and the tree goes on
      H.eq(tree.allReduce(1), n, 'count afterwards')
   end },
   { 'uneven numbers of steps with the default sum', function()
      local t = { torch.Tensor(4):fill(me), k = me }
      for i = 1, n - me + 1 do
         local r, c = tree.allReduce(t)
         local m = n - i + 1
         H.all(r[1], H.tri(m), 'tensor sum at step ' .. i)
         H.eq(r.k, H.tri(m), 'number sum at step ' .. i)
         H.eq(c, m, 'contributors at step ' .. i)
         t = { torch.Tensor(4):fill(me), k = me }
      end
      local r, c = tree.allReduce(nil)
      H.all(r[1], 0, 'zeros at the end')
      H.eq(c, 0, 'contributors at the end')
      local x = torch.FloatTensor(3):fill(me)
      for i = 1, me do H.eq(select(2, tree.allReduce(x)), n - i + 1, 'one tensor, step ' .. i) end
      H.eq(select(2, tree.allReduce(nil)), 0, 'one tensor, the end')
   end },
   { 'scatter still works', function()
      H.all(tree.scatter(torch.Tensor(3):fill(me == 1 and 7 or 0)), 7, 'scatter')
   end },
}, 'node ' .. tostring(node) .. ' ', true)
tree.close()
