-- Storages: constructors, element access, resize, views on other storages, string, totable.
local H = dofile('torch_test_helpers.lua')

for _, T in ipairs(H.types) do
   local S = torch[T .. 'Storage']
   H.eq(S():size(), 0, T .. 'Storage()')
   local s = S(3)
   H.eq(s:size(), 3, T .. 'Storage(3)')
   H.eq(#s, 3, '#' .. T .. 'Storage')
   H.list(s:totable(), { 0, 0, 0 }, T .. 'Storage(3) is zeroed')
   H.list(S({ 1, 2, 3 }):totable(), { 1, 2, 3 }, T .. 'Storage(table)')
   H.eq(torch.typename(s), 'torch.' .. T .. 'Storage', T .. ' storage typename')
end

-- Resize keeps the common prefix and zeroes new elements; every view of the storage sees it.
local s = torch.DoubleStorage({ 1, 2, 3 })
local t = torch.Tensor(s)
H.check(s:resize(5) == s, 'resize returns the storage')
H.list(s:totable(), { 1, 2, 3, 0, 0 }, 'resize to 5')
s:resize(2)
H.list(s:totable(), { 1, 2 }, 'resize to 2')
H.eq(t:storage():size(), 2, 'a tensor on the storage sees the resize')

-- S(storage, offset [, size]) is a view of part of the other storage.
local base = torch.FloatStorage({ 1, 2, 3, 4, 5 })
local part = torch.FloatStorage(base, 2, 3)
H.list(part:totable(), { 2, 3, 4 }, 'storage view')
part[1] = 20
H.eq(base[2], 20, 'storage view writes through')
H.list(torch.FloatStorage(base, 4):totable(), { 4, 5 }, 'storage view to the end')

-- string() for Byte and Char storages: raw bytes in and out.
local cs = torch.CharStorage():string('hello')
H.eq(cs:size(), 5, 'CharStorage:string(s) resizes')
H.eq(cs[1], 104, 'CharStorage holds the bytes')
H.eq(cs:string(), 'hello', 'CharStorage:string()')
H.eq(torch.ByteStorage({ 0x41, 0x00, 0x42 }):string(), 'A\0B', 'ByteStorage:string() keeps NUL bytes')

-- S(filename) reads the file's bytes as elements.
local path = os.tmpname()
local f = assert(io.open(path, 'wb'))
f:write('\1\2\3\4\5')
f:close()
H.list(torch.ByteStorage(path):totable(), { 1, 2, 3, 4, 5 }, 'ByteStorage(file)')
H.eq(torch.ShortStorage(path):size(), 2, 'ShortStorage(file) has whole elements only')
-- Not shared: a private mapping; writes stay here, and the file must hold the size asked for.
local private = torch.ByteStorage(path, false)
private[1] = 9
H.eq(torch.ByteStorage(path)[1], 1, 'a private mapping leaves the file alone')
H.fails_containing(function() return torch.ByteStorage(path, false, 6) end, 'holds 5 bytes, fewer than the 6 asked for')
-- Shared: writes reach the file, and a larger size extends it.
local shared = torch.ByteStorage(path, true, 8)
H.eq(shared:size(), 8, 'shared mapping of 8')
shared[8] = 42
shared = nil
collectgarbage()
local back = torch.ByteStorage(path)
H.eq(back:size(), 8, 'the file was extended')
H.eq(back[8], 42, 'a shared mapping writes through')
os.remove(path)

-- S(name, shared, size, true): a shared-memory object, removed with the storage that made it.
local name = 'luatorch-test-' .. tostring(os.time()) .. '-' .. tostring(math.random(1e9))
local seg = torch.DoubleStorage(name, true, 5, true)
H.eq(seg:size(), 5, 'shared-memory storage size')
local view = torch.DoubleStorage('/dev/shm/' .. name, true, 5)
seg[2] = 2.5
H.eq(view[2], 2.5, 'the same memory, mapped as a file')
H.check(io.open('/dev/shm/' .. name) ~= nil, 'the object exists while its storage lives')
seg, view = nil, nil
collectgarbage()
collectgarbage()
H.check(io.open('/dev/shm/' .. name) == nil, 'the object is removed with its storage')

-- fill, copy, elementSize.
H.list(torch.IntStorage(2):fill(-3):totable(), { -3, -3 }, 'storage fill')
H.list(torch.IntStorage(2):copy(torch.DoubleStorage({ 1.9, -1.9 })):totable(), { 1, -1 }, 'storage copy converts')
H.eq(torch.ShortStorage():elementSize(), 2, 'ShortStorage elementSize')
H.eq(torch.LongStorage():elementSize(), 8, 'LongStorage elementSize')

-- tensor:storage() shares the tensor's memory.
local x = torch.Tensor(2, 2):zero()
x:storage()[4] = 9
H.eq(x[2][2], 9, 'writing the storage changes the tensor')

print('ok')
