-- tds.Hash and tds.Vec against a plain Lua table, side by side in one run (and against the
-- original tds when this script runs under Torch7's th):
--
--   th benches/tds_hash.lua [N]
--
-- Rows: insert and look up N string keys, insert and look up N number keys, walk with pairs,
-- fill and sum a Vec of N numbers. Each figure is the best of 3 runs, in nanoseconds per
-- operation; the ratio is tds over the Lua table. Memory: after 10 rounds of N insertions and
-- deletions, the process's resident size is printed for each round (it must stay flat).
local tds = require 'tds'
require 'torch'

local N = tonumber(arg and arg[1]) or 1000000
local keys = {}
for i = 1, N do keys[i] = 'key' .. i end

local function best(f)
   local t = math.huge
   for _ = 1, 3 do
      collectgarbage()
      local timer = torch.Timer()
      f()
      t = math.min(t, timer:time().real)
   end
   return t * 1e9 / N
end

local function rows(make)
   local r = {}
   local h
   r.insert_string = best(function()
      h = make()
      for i = 1, N do h[keys[i]] = i end
   end)
   r.lookup_string = best(function()
      local s = 0
      for i = 1, N do s = s + h[keys[i]] end
      assert(s == N * (N + 1) / 2)
   end)
   r.insert_number = best(function()
      h = make()
      for i = 1, N do h[i * 7] = i end
   end)
   r.lookup_number = best(function()
      local s = 0
      for i = 1, N do s = s + h[i * 7] end
      assert(s == N * (N + 1) / 2)
   end)
   r.pairs = best(function()
      local n = 0
      for _, v in pairs(h) do n = n + v end
      assert(n == N * (N + 1) / 2)
   end)
   return r
end

local vec = best(function()
   local v = tds.Vec()
   for i = 1, N do v[i] = i end
   local s = 0
   for i = 1, N do s = s + v[i] end
   assert(s == N * (N + 1) / 2)
end)
local list = best(function()
   local v = {}
   for i = 1, N do v[i] = i end
   local s = 0
   for i = 1, N do s = s + v[i] end
   assert(s == N * (N + 1) / 2)
end)

local t = rows(tds.Hash)
local l = rows(function() return {} end)
print(string.format('%-16s %10s %10s %8s', 'N = ' .. N, 'tds ns', 'table ns', 'ratio'))
for _, k in ipairs { 'insert_string', 'lookup_string', 'insert_number', 'lookup_number', 'pairs' } do
   print(string.format('%-16s %10.1f %10.1f %8.2f', k, t[k], l[k], t[k] / l[k]))
end
print(string.format('%-16s %10.1f %10.1f %8.2f', 'vec fill+sum', vec, list, vec / list))

local function rss_mb()
   local f = io.open('/proc/self/statm')
   if not f then return 0 end
   local pages = f:read('*n') and f:read('*n')
   f:close()
   return (pages or 0) * 4096 / 2 ^ 20
end

local h = tds.Hash()
local sizes = {}
for round = 1, 10 do
   for i = 1, N do h[keys[i]] = i end
   for i = 1, N do h[keys[i]] = nil end
   collectgarbage()
   sizes[round] = string.format('%.0f', rss_mb())
end
print('resident MB after each of 10 rounds of ' .. N .. ' insertions and deletions: ' .. table.concat(sizes, ' '))
