-- DiskFile and PipeFile. Runs in an empty temporary directory.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local C = require 'torch_serialize_common'

-- Class and defaults: read mode, ASCII.
local w = torch.DiskFile('a.txt', 'w')
assert(torch.typename(w) == 'torch.DiskFile' and torch.isTypeOf(w, 'torch.File'))
assert(w:isWritable() and not w:isReadable() and not w:isBinary())
w:writeInt(42)
w:writeDouble(torch.DoubleStorage({ 0.5, 2 }))
w:writeString('tail')
assert(w:position() == 14)
-- synchronize makes the bytes visible before close.
w:synchronize()
assert(C.bytes('a.txt') == '42\n0.5 2\ntail')
w:close()

local r = torch.DiskFile('a.txt')
assert(r:isReadable() and not r:isWritable())
assert(r:readInt() == 42)
local d = r:readDouble(2)
assert(d[1] == 0.5 and d[2] == 2)
assert(r:readString('*a') == 'tail')
C.fails('attempt to write in a read-only file', r.writeInt, r, 1)
r:seek(1)
assert(r:readString('*l') == '42')
r:seekEnd()
assert(r:position() == 14)
r:close()

-- 'rw' keeps the contents and creates missing files; 'w' truncates.
local rw = torch.DiskFile('a.txt', 'rw')
assert(rw:readString(2) == '42')
rw:seek(1)
rw:writeString('99')
rw:seek(1)
assert(rw:readString('*l') == '99')
rw:close()
assert(C.bytes('a.txt'):sub(1, 3) == '99\n')
torch.DiskFile('new.txt', 'rw'):close()
assert(C.bytes('new.txt') == '')
torch.DiskFile('a.txt', 'w'):close()
assert(C.bytes('a.txt') == '')

-- Missing files: an error naming the file, or nil when quiet.
C.fails('cannot open <missing.t7> in mode r', torch.DiskFile, 'missing.t7')
C.fails('cannot open <missing.t7> in mode r', torch.load, 'missing.t7')
assert(torch.DiskFile('missing.t7', 'r', true) == nil)
C.fails("file mode should be one of 'r', 'w', 'rw', got 'x'", torch.DiskFile, 'a.txt', 'x')
C.fails('cannot open <.> in mode r', torch.DiskFile, '.')

-- Endianness: big-endian encoding writes swapped bytes; reading it back needs the same setting.
assert(torch.DiskFile.isLittleEndianCPU() ~= torch.DiskFile.isBigEndianCPU())
local e = torch.DiskFile('e.bin', 'w'):binary()
assert(e:bigEndianEncoding() == e)
e:writeInt(1)
e:writeShort(torch.ShortStorage({ 2 }))
e:writeDouble(1.5)
assert(e:littleEndianEncoding() == e)
e:writeInt(1)
assert(e:nativeEndianEncoding() == e)
e:close()
local eb = C.bytes('e.bin')
if torch.DiskFile.isLittleEndianCPU() then
   assert(eb:sub(1, 6) == '\0\0\0\1\0\2' and eb:sub(15, 18) == '\1\0\0\0')
end
local er = torch.DiskFile('e.bin'):binary():bigEndianEncoding()
assert(er:readInt() == 1 and er:readShort() == 2 and er:readDouble() == 1.5)
er:nativeEndianEncoding()
er:littleEndianEncoding()
assert(er:readInt() == 1)
er:close()

-- noBuffer: every write reaches the file at once.
local nb = torch.DiskFile('nb.txt', 'w')
assert(nb:noBuffer() == nb)
nb:writeString('now')
assert(C.bytes('nb.txt') == 'now')
nb:close()

-- Objects on disk, and save/load.
local obj = { t = torch.ShortTensor({ { 1, 2 }, { 3, 4 } }), s = 'x', n = { 1, 2, 3 } }
local o = torch.DiskFile('obj.t7', 'w'):binary()
o:writeObject(obj)
o:writeObject(obj.t)
o:close()
local oi = torch.DiskFile('obj.t7'):binary()
local back = oi:readObject()
assert(C.deep_equal(back, obj) and oi:readObject() == back.t)
oi:close()
for _, mode in ipairs { 'binary', 'ascii' } do
   torch.save('s.t7', obj, mode)
   assert(C.deep_equal(torch.load('s.t7', mode), obj))
end
-- torch.save of something unwritable leaves no open file behind and reports the error.
C.fails('Unwritable object <thread>', torch.save, 'bad.t7', { coroutine.create(print) })

-- PipeFile: read from a command's output, write to its input.
local p = torch.PipeFile('printf "7 8.5\\nline\\n"', 'r')
assert(torch.typename(p) == 'torch.PipeFile' and torch.isTypeOf(p, 'torch.File'))
assert(p:isReadable() and not p:isWritable())
assert(p:readInt() == 7 and p:readDouble() == 8.5 and p:readString('*l') == 'line')
C.fails('cannot seek in a pipe', p.seek, p, 1)
p:close()
local pw = torch.PipeFile('cat > piped.t7', 'w'):binary()
assert(pw:isWritable() and not pw:isReadable())
pw:writeObject(obj)
pw:close()
local pr = torch.PipeFile('cat piped.t7'):binary()
assert(C.deep_equal(pr:readObject(), obj))
pr:close()
assert(C.deep_equal(torch.load('piped.t7'), obj))
C.fails("file mode should be one of 'r', 'w', got 'rw'", torch.PipeFile, 'cat', 'rw')
-- As in Torch, a PipeFile is a DiskFile; seeking fails, the position counts bytes.
local pp = torch.PipeFile('printf abcdef')
assert(torch.isTypeOf(pp, 'torch.DiskFile') and pp.bigEndianEncoding ~= nil)
assert(pp:readString(4) == 'abcd' and pp:position() == 5)
C.fails('cannot seek in a pipe', pp.seekEnd, pp)
pp:close()
-- Writing into a command that has gone: a write error, or the flag in quiet mode.
local gone = torch.PipeFile('exit 0', 'w')
os.execute('sleep 0.2')
local big = string.rep('x', 1024 * 1024)
C.fails('write error', function() gone:writeString(big); gone:synchronize() end)
gone:quiet():clearError()
gone:writeString(big)
gone:synchronize()
assert(gone:hasError())
pcall(gone.close, gone)
C.fails('cannot open <no/such/dir/x.t7> in mode w', torch.DiskFile, 'no/such/dir/x.t7', 'w')
-- writeString takes numbers as Lua's tostring gives them.
local ws = torch.DiskFile('ws.txt', 'w')
assert(ws:writeString(12) == 2)
ws:close()
assert(C.bytes('ws.txt') == '12')
-- A command that fails just gives no input.
local none = torch.PipeFile('exit 3', 'r'):quiet()
assert(none:readObject() == nil and none:hasError())
none:close()

print('ok')
