-- Error paths: each failure is a Lua error that says what went wrong.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local C = require 'torch_serialize_common'
local fails = C.fails

-- Unwritable values name their type and where they sit.
fails('Unwritable object <thread> at <?>.a.b', torch.serialize, { a = { b = coroutine.create(print) } })
fails('Unwritable object <function> at <?>.f', torch.serialize, { f = os.time })
fails('Unwritable object <userdata> at <?>', torch.serialize, io.stdout)
local mf = torch.MemoryFile()
fails('Unwritable object <thread> at model.x', mf.writeObject, mf, { x = coroutine.create(print) }, 'model')
-- In a function's upvalues the path uses the upvalue's name.
local co = coroutine.create(print)
local function holds() return co end
fails('Unwritable object <thread> at <?>.co', torch.serialize, holds)
-- A torch object that is neither a table nor has a write method.
local Odd = torch.newmetatable('test.Odd', nil, nil, nil, function() return newproxy(true) end)
local ud = newproxy(true)
getmetatable(ud).__typename = 'test.Odd'
fails('<test.Odd> is a non-serializable Torch object', torch.serialize, ud)
assert(Odd)

-- A cycle written with references off recurses until the depth limit, then fails cleanly.
local cyc = {}
cyc.self = cyc
local nf = torch.MemoryFile():binary():referenced(false)
fails('nested more than', nf.writeObject, nf, cyc)
nf:close()
-- Deep but acyclic structures within the limit are fine.
local deep = {}
local cur = deep
for _ = 1, 400 do
   cur.next = {}
   cur = cur.next
end
assert(C.deep_equal(C.roundtrip(deep), deep))

-- Arguments of the helpers.
fails('"binary" or "ascii" (or nil) expected for mode', torch.save, 'x.t7', {}, 'text')
fails('true or false (or nil) expected for referenced', torch.save, 'x.t7', {}, 'binary', 1)
fails('"binary", "b32", "b64" or "ascii" (or nil) expected for mode', torch.load, 'x.t7', 'b16')
fails('true or false (or nil) expected for referenced', torch.load, 'x.t7', nil, 'yes')
fails('"binary" or "ascii" (or nil) expected for mode', torch.serialize, {}, 'b32')
fails('"binary" or "ascii" (or nil) expected for mode', torch.deserialize, '', 'b64')
fails('string expected, got table', torch.deserialize, {})
fails('torch.CharStorage or 1-D torch.CharTensor expected, got torch.ByteStorage', torch.deserializeFromStorage, torch.ByteStorage())
fails('1-D torch.CharTensor expected, got torch.CharTensor of 2 dimensions', torch.deserializeFromStorage, torch.CharTensor(2, 2))

-- Constructors.
fails('torch.File is abstract', torch.File)
fails('provided CharStorage must be terminated by 0', torch.MemoryFile, torch.CharStorage():string('abc'))
fails('provided CharStorage must be terminated by 0', torch.MemoryFile, torch.CharStorage())
fails('torch.CharStorage expected, got torch.ByteStorage', torch.MemoryFile, torch.ByteStorage(2))
fails("file mode should be one of 'r', 'w', 'rw', got 'a'", torch.MemoryFile, 'a')
fails('file name expected, got nil', torch.DiskFile)
fails('command expected, got number', torch.PipeFile, 3)
fails('mode string expected, got number', torch.DiskFile, 'x', 5)

-- Methods: bad arguments and receivers.
local m = torch.MemoryFile()
fails('readInt: bad argument #1 (nothing, a number or a torch.IntStorage expected, got torch.FloatStorage)',
   m.readInt, m, torch.FloatStorage(2))
fails('writeFloat: bad argument #1 (a number or a torch.FloatStorage expected, got string)', m.writeFloat, m, 'x')
fails('readDouble: cannot read -1 elements', m.readDouble, m, -1)
fails('readString: format must be', m.readString, m, '*x')
fails('readString: cannot read -2 bytes', m.readString, m, -2)
fails('writeString: bad argument #1 (string expected, got table)', m.writeString, m, {})
fails('longSize: invalid long size 3 (expected 0, 4 or 8)', m.longSize, m, 3)
fails('seek: position must be positive', m.seek, m, -1)
fails('writeObject: bad argument #3 (hook function expected, got number)', m.writeObject, m, 1, nil, 5)
fails('expected a torch.File as receiver', m.readInt, {})
fails('expected a torch.File as receiver', m.writeObject, nil, 1)
-- A File made by the class factory has no handle (as from a corrupt file): a clear error.
local bare = torch.factory('torch.MemoryFile')()
fails('expected a torch.File as receiver', bare.readInt, bare)
m:close()

-- Reading: wrong mode, truncation, unknown classes.
local bin = torch.serialize({ 1, 2, 3 })
fails('unknown object', torch.deserialize, torch.serialize({ 1, 2 }, 'ascii'), 'binary')
fails('read error', torch.deserialize, bin, 'ascii')
fails('read error: read 0 blocks instead of 1', torch.deserialize, bin:sub(1, 12))
fails('read error', torch.deserialize, '')
local function class_file(name)
   local f = torch.MemoryFile():binary()
   f:writeInt(4)
   f:writeInt(1)
   f:writeInt(3)
   f:writeChar(torch.CharStorage():string('V 1'))
   f:writeInt(#name)
   f:writeChar(torch.CharStorage():string(name))
   local s = f:storage():string():sub(1, -2)
   f:close()
   return s
end
fails('unknown Torch class <nn.Nope>', torch.deserialize, class_file('nn.Nope'))
-- An old file without a version string names the class first.
local old = torch.MemoryFile():binary()
old:writeInt(4)
old:writeInt(1)
old:writeInt(8)
old:writeChar(torch.CharStorage():string('nn.Gone2'))
fails('unknown Torch class <nn.Gone2>', torch.deserialize, old:storage():string():sub(1, -2))
old:close()
-- A class whose factory makes something that is neither a table nor has a read method.
torch.newmetatable('test.Opaque', nil, nil, nil, function() return 5 end)
fails('Cannot load object class <test.Opaque>', torch.deserialize, class_file('test.Opaque'))
-- Errors raised by a class's own read method come through.
local Bad = torch.class('test.BadRead')
function Bad:read() error('my read failed') end
fails('my read failed', torch.deserialize, class_file('test.BadRead'))

-- A function whose bytecode this LuaJIT cannot load: warning and nil, the rest still read.
local fn_file = torch.MemoryFile():binary()
-- (Indices 10 and 11: the file's own writeObject calls below use 1 for the upvalue table.)
fn_file:writeInt(3)
fn_file:writeInt(10)
fn_file:writeInt(2)
fn_file:writeObject('f')
fn_file:writeInt(8)
fn_file:writeInt(11)
fn_file:writeInt(5)
fn_file:writeChar(torch.CharStorage():string('\27LJ\1\0'))
fn_file:writeObject({})
fn_file:writeObject('after')
fn_file:writeObject(true)
local loaded = torch.deserialize(fn_file:storage():string():sub(1, -2))
assert(loaded.f == nil and loaded.after == true)
fn_file:close()

print('ok')
