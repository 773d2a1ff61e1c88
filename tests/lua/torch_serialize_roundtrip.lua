-- Values written by us load back identically, in binary and ASCII, with references on and off.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local C = require 'torch_serialize_common'

local modes = { 'binary', 'ascii' }

local function check(v, what)
   for _, mode in ipairs(modes) do
      local back = C.roundtrip(v, mode)
      assert(C.deep_equal(v, back), what .. ' did not round-trip in ' .. mode)
      -- referenced(false) on both sides reads what was written (no cycles here).
      local f = torch.MemoryFile()
      f[mode](f)
      f:referenced(false)
      f:writeObject(v)
      local s = f:storage()
      f:close()
      local g = torch.MemoryFile(s, 'r')
      g[mode](g)
      g:referenced(false)
      assert(C.deep_equal(v, g:readObject()), what .. ' did not round-trip unreferenced in ' .. mode)
      assert(not g:isReferenced())
      g:close()
   end
end

-- Scalars, including the awkward numbers.
for _, v in ipairs { 0, -0.0, 1, -1, 0.1, 1 / 3, 2 ^ 53, -2 ^ 63, 1e-310, 1e308, math.huge, -math.huge, 0 / 0,
   'a string', '', 'with\0nul\nand newline\255', true, false } do
   check(v, 'value ' .. tostring(v))
end
check(string.rep('x', 100000), 'long string')

-- Tables: lists, maps, nested, numeric and boolean keys, empty.
check({}, 'empty table')
check({ 1, 2, 3, 'four', { five = 5 } }, 'list')
check({ a = { b = { c = { d = 'deep' } } }, [1.5] = 'float key', [true] = 'bool key', [-3] = false }, 'map')

-- Every tensor and storage type, with values each type can hold.
for _, T in ipairs(C.types) do
   local ctor = torch[T .. 'Tensor']
   local values = (T == 'Byte') and { 0, 1, 127, 255, 10, 13 } or { 0, 1, -1, 100, 10, -128 }
   local t = ctor(values)
   check(t, T .. ' 1-D')
   check(ctor(values):resize(2, 3), T .. ' 2-D')
   check(ctor(values):resize(3, 2):t(), T .. ' transposed')
   check(ctor(values):narrow(1, 2, 3), T .. ' narrowed (offset, whole storage written)')
   check(ctor(), T .. ' empty')
   check(ctor(2, 0), T .. ' zero-size')
   check(ctor(values):storage(), T .. ' storage')
   check(torch[T .. 'Storage'](), T .. ' empty storage')
   check({ ctor(values), name = T }, T .. ' in a table')
end

-- Doubles and floats keep every bit, specials included, in ASCII too.
local d = torch.DoubleTensor({ 0.1, 1 / 3, 1e-300, 5e-324, 1.7976931348623157e308, math.huge, -math.huge, 0 / 0, -0.0 })
check(d, 'double specials')
local fl = torch.FloatTensor({ 0.1, 1 / 3, 1e-38, 1e-45, 3.4028234e38, math.huge, -math.huge, 0 / 0 })
check(fl, 'float specials')
-- Long extremes (binary keeps all 64 bits; Lua numbers see them as doubles).
check(torch.LongTensor({ 2 ^ 62, -2 ^ 62, 2 ^ 53 + 2 }), 'long extremes')
-- CharStorage bytes are raw in ASCII: newlines and spaces inside survive.
check(torch.CharStorage():string('a\nb c\n\n'), 'char storage with newlines')
check(torch.ByteTensor(torch.ByteStorage():string('\n\n\0\255 ')), 'byte tensor with newlines')

-- A larger tensor, past the internal chunk sizes.
local big = torch.DoubleTensor(300, 500):uniform()
check(big, 'big tensor')

-- Tensor views keep their geometry over the shared storage.
local base = torch.FloatTensor(4, 5):uniform()
local view = base:narrow(2, 2, 3):t()
local back = C.roundtrip(view)
assert(back:size(1) == 3 and back:size(2) == 4 and back:stride(1) == 1 and back:stride(2) == 5)
assert(back:storage():size() == 20 and back:storageOffset() == 2)
for i = 1, 3 do
   for j = 1, 4 do assert(back[i][j] == view[i][j]) end
end

-- serializeToStorage / deserializeFromStorage.
local st = torch.serializeToStorage({ x = 1 })
assert(torch.typename(st) == 'torch.CharStorage' and st:string() == torch.serialize({ x = 1 }))
assert(torch.deserializeFromStorage(st).x == 1)
assert(torch.deserializeFromStorage(torch.serializeToStorage({ y = 2 }, 'ascii'), 'ascii').y == 2)
-- a 1-D CharTensor of the bytes too, a view into a larger one included (torchnet keeps them so)
assert(torch.deserializeFromStorage(torch.CharTensor(st)).x == 1)
local padded = torch.CharTensor(st:size() + 7):fill(65)
padded:narrow(1, 4, st:size()):copy(torch.CharTensor(st))
assert(torch.deserializeFromStorage(padded:narrow(1, 4, st:size())).x == 1)

-- Several objects in one file follow each other.
local f = torch.MemoryFile()
f:binary()
f:writeObject(1)
f:writeObject('two')
f:writeObject({ 3 })
f:seek(1)
assert(f:readObject() == 1 and f:readObject() == 'two' and f:readObject()[1] == 3)
f:close()

-- Cuda*/Half class names load as the CPU types (hand-made files, as a GPU Torch writes them).
local function torch_object(class, payload)
   local m = torch.MemoryFile():binary()
   m:writeInt(4)
   m:writeInt(1)
   m:writeInt(3)
   m:writeChar(torch.CharStorage():string('V 1'))
   m:writeInt(#class)
   m:writeChar(torch.CharStorage():string(class))
   payload(m)
   local s = m:storage():string()
   m:close()
   return s:sub(1, -2)
end
local function tensor_payload(storage_class, write_data)
   return function(m)
      m:writeInt(1)
      m:writeLong(torch.LongStorage({ 2 }))
      m:writeLong(torch.LongStorage({ 1 }))
      m:writeLong(1)
      m:writeInt(4)
      m:writeInt(2)
      m:writeInt(3)
      m:writeChar(torch.CharStorage():string('V 1'))
      m:writeInt(#storage_class)
      m:writeChar(torch.CharStorage():string(storage_class))
      m:writeLong(2)
      write_data(m)
   end
end
local cuda = torch.deserialize(torch_object('torch.CudaTensor', tensor_payload('torch.CudaStorage',
   function(m) m:writeFloat(torch.FloatStorage({ 1.5, -2 })) end)))
assert(torch.typename(cuda) == 'torch.FloatTensor' and cuda[1] == 1.5 and cuda[2] == -2)
local cl = torch.deserialize(torch_object('torch.CudaLongTensor', tensor_payload('torch.CudaLongStorage',
   function(m) m:writeLong(torch.LongStorage({ 7, 8 })) end)))
assert(torch.typename(cl) == 'torch.LongTensor' and cl[2] == 8)
local cs = torch.deserialize(torch_object('torch.CudaDoubleStorage', function(m)
   m:writeLong(1)
   m:writeDouble(2.25)
end))
assert(torch.typename(cs) == 'torch.DoubleStorage' and cs[1] == 2.25)
-- Half: 2-byte data (1.0 = 0x3c00, -2.0 = 0xc000), loaded as a HalfTensor (cutorch here has no
-- half type).
local half = torch.deserialize(torch_object('torch.CudaHalfTensor', tensor_payload('torch.CudaHalfStorage',
   function(m) m:writeShort(torch.ShortStorage({ 0x3c00, -16384 })) end)))
assert(torch.typename(half) == 'torch.HalfTensor' and half[1] == 1 and half[2] == -2)

-- Files from platforms with 4-byte longs load with 'b32'.
local path = os.tmpname()
local w = torch.DiskFile(path, 'w'):binary():longSize(4)
w:writeObject({ t = torch.LongTensor({ 5, -6 }), d = torch.DoubleTensor({ 0.5 }) })
w:close()
local l = torch.load(path, 'b32')
assert(l.t[1] == 5 and l.t[2] == -6 and l.d[1] == 0.5)
assert(not pcall(torch.load, path, 'b64'))
torch.save(path, { 1, 2 })
assert(torch.load(path, 'b64')[2] == 2)
-- torch.save defaults to binary; ascii on request; the mode must match on load.
torch.save(path, { x = 'y' }, 'ascii')
assert(torch.load(path, 'ascii').x == 'y')
assert(C.bytes(path) == '3\n1\n1\n2\n1\nx\n2\n1\ny\n')
torch.save(path, { x = 'y' }, 'binary', false)
assert(torch.load(path, 'binary', false).x == 'y')
assert(torch.saveobj == torch.save and torch.loadobj == torch.load)
os.remove(path)

print('ok')
