-- The bytes we write are Torch's, exactly: the worked examples of torch_core.md §2.5.

local function unhex(h)
   h = h:gsub('%s', '')
   return (h:gsub('..', function(b) return string.char(tonumber(b, 16)) end))
end

local function hex(s)
   return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end))
end

local function le_double(x)
   local s = torch.MemoryFile():binary()
   s:writeDouble(x)
   local st = s:storage()
   return st:string():sub(1, 8)
end

-- {hello=123}: table, index 1, one pair, string "hello", number 123.
local hello = unhex [[
   03000000 01000000 01000000
   02000000 05000000 68656c6c6f
   01000000 0000000000c05e40
]]
assert(torch.serialize({ hello = 123 }) == hello, hex(torch.serialize({ hello = 123 })))
assert(torch.serialize({ hello = 123 }, 'binary') == hello)

-- A 2x3 DoubleTensor: torch object with its storage as a nested torch object (index 2).
local t = torch.DoubleTensor({ { 1, 2, 3 }, { 4, 5, 6 } })
local long = function(n)
   local s = ''
   for i = 0, 7 do s = s .. string.char(math.floor(n / 2 ^ (8 * i)) % 256) end
   return s
end
local want = unhex('04000000 01000000 03000000') .. 'V 1' .. unhex('12000000') .. 'torch.DoubleTensor'
   .. unhex('02000000') .. long(2) .. long(3) .. long(3) .. long(1) .. long(1)
   .. unhex('04000000 02000000 03000000') .. 'V 1' .. unhex('13000000') .. 'torch.DoubleStorage'
   .. long(6)
for i = 1, 6 do want = want .. le_double(i) end
assert(#want == 175)
assert(torch.serialize(t) == want, hex(torch.serialize(t)))

-- The same tensor in real Torch's file (with 6.9 as the last element) is byte-identical.
local f = assert(io.open('../fixtures/t7/doubletensor.t7', 'rb'))
local real = f:read('*a')
f:close()
t[2][3] = 6.9
assert(torch.serialize(t) == real)

-- ASCII: every write call is one line; Char data is raw bytes.
local a = torch.DoubleTensor({ 0.1, 0.2 })
local ascii = table.concat({ '4', '1', '3', 'V 1', '18', 'torch.DoubleTensor', '1', '2', '1', '1', '4', '2', '3',
   'V 1', '19', 'torch.DoubleStorage', '2', '0.10000000000000001 0.20000000000000001' }, '\n') .. '\n'
assert(torch.serialize(a, 'ascii') == ascii, torch.serialize(a, 'ascii'))
assert(torch.serialize({ hello = 123 }, 'ascii') == '3\n1\n1\n2\n5\nhello\n1\n123\n')
assert(torch.deserialize(ascii, 'ascii')[2] == 0.2)

-- Floats in ASCII are %.9g; the empty tensor writes no sizes, offset 1 and a nil storage.
assert(torch.serialize(torch.FloatTensor({ 0.1 }), 'ascii'):find('\n0.100000001\n$'))
local e = torch.serialize(torch.DoubleTensor(), 'ascii')
assert(e == '4\n1\n3\nV 1\n18\ntorch.DoubleTensor\n0\n1\n0\n', e)

-- Booleans are ints, nil is tag 0, every number a double.
assert(torch.serialize(true) == unhex('05000000 01000000'))
assert(torch.serialize(false) == unhex('05000000 00000000'))
assert(torch.serialize(nil) == unhex('00000000'))
assert(torch.serialize(7) == unhex('01000000') .. le_double(7))
assert(torch.serialize('') == unhex('02000000 00000000'))

-- A function: tag 8, index, bytecode, then the upvalue list {name=, id=, value=}.
local up = 5
local fn = function() return up end
local s = torch.serialize(fn)
assert(s:sub(1, 8) == unhex('08000000 01000000'))
local code = string.dump(fn)
assert(s:sub(13, 12 + #code) == code)
print('ok')
