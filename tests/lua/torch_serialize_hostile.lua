-- Truncated, corrupt and hostile input: always a Lua error (or, for damaged bytecode, Torch's
-- warning and nil), never a crash, a hang, or an allocation the size of a lie.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local C = require 'torch_serialize_common'
local unhex = C.unhex

-- Peak resident memory so far, in kB (Linux).
local function peak_kb()
   local f = io.open('/proc/self/status')
   if not f then return 0 end
   local s = f:read('*a')
   f:close()
   return tonumber(s:match('VmHWM:%s*(%d+)')) or 0
end
local peak_before = peak_kb()

local function int(n)
   local f = torch.MemoryFile():binary()
   f:writeInt(n)
   return f:storage():string():sub(1, 4)
end
local function long(n)
   local f = torch.MemoryFile():binary()
   f:writeLong(n)
   return f:storage():string():sub(1, 8)
end
local function str(s) return int(#s) .. s end
local function torch_header(index, class) return int(4) .. int(index) .. str('V 1') .. str(class) end

local function must_fail(s, mode, what)
   local ok, err = pcall(torch.deserialize, s, mode)
   assert(not ok, (what or 'input') .. ' was accepted')
   return err
end

-- A file with every kind of object in it.
local shared = torch.DoubleTensor(3, 4)
for i = 1, 3 do for j = 1, 4 do shared[i][j] = (i * 4 + j) / 7 end end
local up = { 1 }
local rich = {
   n = 1.5, s = 'text', b = true, t = shared, v = shared:narrow(2, 2, 2), st = torch.IntStorage({ 1, 2 }),
   nested = { { { 'deep' } } }, f = function(x) return x + up[1] end, l = torch.LongTensor({ 1, 2 }),
}
rich.self = rich

-- Every truncation fails, in both modes.
for _, mode in ipairs { 'binary', 'ascii' } do
   local s = torch.serialize(rich, mode)
   assert(C.deep_equal(torch.deserialize(s, mode).nested, rich.nested))
   for cut = 0, #s - 1 do
      local trimmed = s:sub(1, cut)
      -- ASCII can end inside a number's digits (or before the last newline) and still parse:
      -- "12" cut to "1" may be another valid index. Binary cannot.
      local ok = pcall(torch.deserialize, trimmed, mode)
      local digit_cut = s:sub(cut + 1, cut + 1):match('[%d%.eE%+%-\n]') ~= nil
      assert(not ok or (mode == 'ascii' and digit_cut), mode .. ' truncation at ' .. cut .. ' was accepted')
   end
end

-- Byte changes anywhere: any outcome but a crash. A fixed generator keeps the run repeatable.
local seed = 12345
local function rand(n)
   seed = (seed * 1103515245 + 12345) % 2147483648
   return seed % n
end
for _, mode in ipairs { 'binary', 'ascii' } do
   local s = torch.serialize(rich, mode)
   for i = 1, #s do
      for _, b in ipairs { 0, 1, 255, 127, 128, rand(256) } do
         pcall(torch.deserialize, s:sub(1, i - 1) .. string.char(b) .. s:sub(i + 1), mode)
      end
   end
   for _ = 1, 300 do
      local m = s
      for _ = 1, 1 + rand(4) do
         local i = 1 + rand(#m)
         m = m:sub(1, i - 1) .. string.char(rand(256)) .. m:sub(i + 1)
      end
      pcall(torch.deserialize, m, mode)
   end
end
-- Random garbage.
for _ = 1, 300 do
   local t = {}
   for i = 1, rand(64) do t[i] = string.char(rand(256)) end
   pcall(torch.deserialize, table.concat(t))
   pcall(torch.deserialize, table.concat(t), 'ascii')
end

-- Declared sizes far beyond the input fail without allocating them.
must_fail(int(2) .. int(0x7fffffff) .. 'abc', nil, 'huge string')
must_fail(int(2) .. int(-5), nil, 'negative string length')
must_fail(int(3) .. int(1) .. int(0x7fffffff), nil, 'huge table')
must_fail(int(3) .. int(1) .. int(-1), nil, 'negative table count')
must_fail(torch_header(1, 'torch.DoubleStorage') .. long(2 ^ 62) .. long(0), nil, 'huge storage')
must_fail(torch_header(1, 'torch.ByteStorage') .. long(2 ^ 40), nil, 'huge byte storage')
must_fail(torch_header(1, 'torch.DoubleStorage') .. long(-1), nil, 'negative storage size')
must_fail('4\n1\n3\nV 1\n19\ntorch.DoubleStorage\n1099511627776\n1 2 3\n', 'ascii', 'huge ascii storage')
must_fail(torch_header(1, 'torch.FloatTensor') .. int(0x7fffffff), nil, 'huge dimension count')
must_fail(torch_header(1, 'torch.FloatTensor') .. int(-2), nil, 'negative dimension count')
-- Tensors whose view does not fit their storage, or whose storage is not one.
local function tensor(size, stride, offset, storage)
   return torch_header(1, 'torch.FloatTensor') .. int(#size) .. table.concat((function()
      local t = {}
      for _, v in ipairs(size) do t[#t + 1] = long(v) end
      for _, v in ipairs(stride) do t[#t + 1] = long(v) end
      return t
   end)()) .. long(offset) .. storage
end
local st3 = torch_header(2, 'torch.FloatStorage') .. long(3) .. string.rep('\0', 12)
assert(torch.deserialize(tensor({ 3 }, { 1 }, 1, st3)):size(1) == 3)
assert(tostring(must_fail(tensor({ 4 }, { 1 }, 1, st3))):find('extends past the end'))
must_fail(tensor({ 2 }, { 2 }, 2, st3), nil, 'stride past the end')
must_fail(tensor({ 2 }, { 1 }, 0, st3), nil, 'offset 0')
must_fail(tensor({ 2 }, { -1 }, 2, st3), nil, 'negative stride')
must_fail(tensor({ 2 ^ 40, 2 ^ 40 }, { 2 ^ 40, 2 ^ 40 }, 1, st3), nil, 'overflowing view')
must_fail(tensor({ 2 }, { 1 }, 1, int(0)), nil, 'elements without storage')
-- A zero size with others whose product overflows (a fuzzer find): refused; huge but empty is fine.
must_fail(tensor({ 2 ^ 40, 2 ^ 40, 0 }, { 1, 1, 1 }, 1, st3), nil, 'overflowing sizes around a zero')
assert(torch.deserialize(tensor({ 2 ^ 40, 0 }, { 1, 1 }, 1, st3)):nElement() == 0)
must_fail(tensor({ 1 }, { 1 }, 1, torch_header(2, 'torch.IntStorage') .. long(1) .. int(0)), nil, 'wrong storage type')
must_fail(tensor({ 1 }, { 1 }, 1, int(1) .. long(0)), nil, 'a number as storage')
-- The storage slot refers back to the tensor itself.
must_fail(tensor({ 1 }, { 1 }, 1, int(4) .. int(1)), nil, 'tensor as its own storage')

-- Deep nesting is refused before the stack runs out, in both directions.
local depth = 100000
local nest = {}
for i = 1, depth do nest[i] = int(3) .. int(i) .. int(1) .. int(1) .. unhex('000000000000f03f') end
local deep = table.concat(nest) .. int(0)
assert(tostring(must_fail(deep, nil, 'deep nesting')):find('nested more than'))
local ascii_parts = {}
for i = 1, 50000 do ascii_parts[i] = '3\n' .. i .. '\n1\n1\n1\n' end
local ascii_nest = table.concat(ascii_parts) .. '0\n'
must_fail(ascii_nest, 'ascii', 'deep ascii nesting')

-- Function bytecode: damaged dumps give the warning and nil; lengths are checked.
local y = 3
local fn = function(a) return a + y end
local code = string.dump(fn)
local function fn_file(bytes)
   return int(8) .. int(1) .. str(bytes) .. int(3) .. int(2) .. int(0)
end
assert(torch.deserialize(fn_file(code)) ~= nil)
-- (Empty input is source text, and loads as an empty function, as loadstring('') does.)
for cut = 1, #code - 1 do
   assert(torch.deserialize(fn_file(code:sub(1, cut))) == nil)
end
for i = 5, #code do
   for _, b in ipairs { 0, 255, 128, 127 } do
      local ok, f = pcall(torch.deserialize, fn_file(code:sub(1, i - 1) .. string.char(b) .. code:sub(i + 1)))
      assert(ok and (f == nil or type(f) == 'function'))
   end
end
must_fail(int(8) .. int(1) .. int(0x7fffffff) .. code, nil, 'huge bytecode length')
-- Upvalue entries that are not tables, and ids that join nothing sensible.
must_fail(int(8) .. int(1) .. str(code) .. int(3) .. int(2) .. int(1) .. int(1) .. unhex('000000000000f03f')
   .. int(1) .. unhex('0000000000000040'), nil, 'upvalue entry that is a number')
local entry = function(index, id)
   return int(3) .. int(index) .. int(3) .. int(2) .. str('name') .. int(2) .. str('y')
      .. int(2) .. str('id') .. int(1) .. unhex(id) .. int(2) .. str('value') .. int(1) .. unhex('0000000000001040')
end
local list = int(3) .. int(2) .. int(3)
   .. int(1) .. unhex('000000000000f03f') .. entry(3, '0000000000001440')
   .. int(1) .. unhex('0000000000000040') .. entry(4, '0000000000001440')
   .. int(1) .. unhex('0000000000000840') .. entry(5, '000000000000f87f')
local joined = torch.deserialize(int(8) .. int(1) .. str(code) .. list)
assert(joined(1) == 5)

-- Wrong mode or long size: errors, not garbage.
local good = torch.serialize({ torch.LongTensor({ 1, 2, 3 }) })
local f = torch.MemoryFile(torch.CharStorage():string(good .. '\0'), 'r'):binary():longSize(4)
assert(not pcall(f.readObject, f))
f:close()

-- Quiet mode: a truncated object is nil and the error flag, not an exception.
local q = torch.MemoryFile(torch.CharStorage():string(good:sub(1, 30) .. '\0'), 'r'):binary():quiet()
assert(q:readObject() == nil and q:hasError())
q:close()

local grown = peak_kb() - peak_before
assert(grown < 200 * 1024, 'peak memory grew by ' .. grown .. ' kB')
print('ok')
