-- Test helpers: fixtures from tests/fixtures/record_mdp.py, the MINSTD and numpy (MT19937)
-- generators, comparisons with eigenvector signs aligned, error assertions.
local H = {}

local here = debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or 'tests'
H.dir = here
H.fixtures = here .. '/fixtures'

-- A fixture file as name -> DoubleTensor (rows × cols).
function H.fixture(case)
   local path = H.fixtures .. '/' .. case .. '.txt'
   local f = assert(io.open(path), 'missing fixture ' .. path .. ' (run tests/fixtures/record_mdp.py)')
   local out = {}
   while true do
      local line = f:read('*l')
      if line == nil then break end
      local name, r, c = line:match('^(%S+) (%d+) (%d+)$')
      assert(name, 'bad fixture line: ' .. line)
      r, c = tonumber(r), tonumber(c)
      local t = torch.DoubleTensor(r, c)
      for i = 1, r do
         for j = 1, c do t[i][j] = f:read('*n') end
      end
      f:read('*l')
      out[name] = t
   end
   f:close()
   return out
end

-- MINSTD: s <- 48271 s mod (2^31 - 1), x = s / (2^31 - 1), filled row-major (exact in doubles).
function H.minstd(rows, cols, seed)
   local s = seed or 1
   local t = torch.DoubleTensor(rows, cols)
   local d = t:data()
   for i = 0, rows * cols - 1 do
      s = (48271 * s) % 2147483647
      d[i] = s / 2147483647
   end
   return t
end

-- numpy.random.seed(seed); numpy.random.random((rows, cols)) ... : MT19937 with init_genrand.
function H.numpy_rng(seed)
   local bit = require 'bit'
   local band, bxor, rshift, lshift = bit.band, bit.bxor, bit.rshift, bit.lshift
   local function u32(x) return x % 4294967296 end
   local function mul32(a, b)
      local alo, ahi = a % 65536, math.floor(a / 65536)
      local blo, bhi = b % 65536, math.floor(b / 65536)
      return u32(((alo * bhi + ahi * blo) % 65536) * 65536 + alo * blo)
   end
   local mt, idx = {}, 625
   mt[0] = u32(seed)
   for i = 1, 623 do
      local prev = mt[i - 1]
      mt[i] = u32(mul32(1812433253, u32(bxor(prev, rshift(prev, 30)))) + i)
   end
   idx = 624
   local function gen()
      if idx >= 624 then
         for k = 0, 623 do
            local y = u32(band(mt[k], 0x80000000) + band(mt[(k + 1) % 624], 0x7fffffff))
            local v = u32(bxor(mt[(k + 397) % 624], rshift(y, 1)))
            if y % 2 == 1 then v = u32(bxor(v, 0x9908b0df)) end
            mt[k] = v
         end
         idx = 0
      end
      local y = mt[idx]
      idx = idx + 1
      y = u32(bxor(y, rshift(y, 11)))
      y = u32(bxor(y, band(lshift(y, 7), 0x9d2c5680)))
      y = u32(bxor(y, band(lshift(y, 15), 0xefc60000)))
      y = u32(bxor(y, rshift(y, 18)))
      return y
   end
   local rng = {}
   function rng.random(rows, cols)
      local t = torch.DoubleTensor(rows, cols)
      local d = t:data()
      for i = 0, rows * cols - 1 do
         local a, b = math.floor(gen() / 32), math.floor(gen() / 64)
         d[i] = (a * 67108864 + b) / 9007199254740992
      end
      return t
   end
   return rng
end

function H.chunks(x, size)
   local list = {}
   for i = 1, x:size(1), size do
      list[#list + 1] = x:narrow(1, i, math.min(size, x:size(1) - i + 1))
   end
   return list
end

-- max |ours − ref|; with align, each column of ours is first multiplied by the sign that best
-- matches ref's column (eigenvector signs are arbitrary).
function H.maxdiff(ours, ref, align)
   ours = ours:double()
   if ours:dim() == 1 then ours = ours:view(1, -1) end
   if ref:dim() == 1 then ref = ref:view(1, -1) end
   assert(ours:nElement() == ref:nElement(),
      ('size mismatch: %s vs %s'):format(table.concat(ours:size():totable(), 'x'), table.concat(ref:size():totable(), 'x')))
   ours = ours:contiguous():view(ref:size())
   if align then
      ours = ours:clone()
      for j = 1, ours:size(2) do
         local dot = torch.dot(ours:select(2, j), ref:select(2, j))
         if dot < 0 then ours:select(2, j):mul(-1) end
      end
   end
   return (ours - ref):abs():max()
end

H.report = {}

-- Asserts max diff ≤ tol and records it under `label` for the summary.
function H.close(label, ours, ref, tol, align)
   local d = H.maxdiff(ours, ref, align)
   local prev = H.report[label]
   if prev == nil or d > prev then H.report[label] = d end
   if not (d <= (tol or 1e-9)) then
      error(('%s: max abs diff %.3g > %.3g'):format(label, d, tol or 1e-9), 2)
   end
   return d
end

function H.summary()
   local keys = {}
   for k in pairs(H.report) do keys[#keys + 1] = k end
   table.sort(keys)
   for _, k in ipairs(keys) do print(('  %-34s max abs diff %.2e'):format(k, H.report[k])) end
end

-- Asserts that f(...) raises an MDP exception `name` whose message contains `text`.
function H.raises(name, text, f, ...)
   local mdp = require 'mdp'
   local ok, err = pcall(f, ...)
   if ok then error(('expected %s, nothing raised'):format(name), 2) end
   if not mdp.is_exception(err, name) then
      error(('expected %s, got: %s'):format(name, tostring(err)), 2)
   end
   if text and not tostring(err):find(text, 1, true) then
      error(('expected %q in: %s'):format(text, tostring(err)), 2)
   end
   return err
end

function H.eq(a, b, msg)
   if a ~= b then error((msg or 'values differ') .. (': %s ~= %s'):format(tostring(a), tostring(b)), 2) end
end

return H
