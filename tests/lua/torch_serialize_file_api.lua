-- The torch.File methods, on MemoryFile (DiskFile and PipeFile: torch_serialize_disk.lua).
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local C = require 'torch_serialize_common'

-- Classes: MemoryFile inherits torch.File.
local f = torch.MemoryFile()
assert(torch.typename(f) == 'torch.MemoryFile')
assert(torch.isTypeOf(f, 'torch.File') and torch.isTypeOf(f, torch.File) and torch.isTypeOf(f, 'torch.MemoryFile'))
assert(not torch.isTypeOf(f, 'torch.DiskFile'))
assert(torch.getmetatable('torch.File').readObject ~= nil)

-- Defaults: ASCII, auto-spacing, pedantic, referenced, read/write.
assert(not f:isBinary() and f:isAutoSpacing() and not f:isQuiet() and f:isReferenced())
assert(f:isReadable() and f:isWritable() and not f:hasError())
assert(f:position() == 1)

-- Mode setters return the file and flip the queries.
assert(f:binary() == f and f:isBinary())
assert(f:ascii() == f and not f:isBinary())
assert(f:noAutoSpacing() == f and not f:isAutoSpacing())
assert(f:autoSpacing() == f and f:isAutoSpacing())
assert(f:quiet() == f and f:isQuiet())
assert(f:pedantic() == f and not f:isQuiet())
assert(f:referenced(false) == f and not f:isReferenced())
assert(f:referenced(true) == f and f:isReferenced())
assert(f:longSize(4) == f and f:longSize(8) == f and f:longSize(0) == f)
assert(f:synchronize() == f)
f:close()

-- Typed writes and reads in every form, both modes.
local values = {
   Byte = { 0, 7, 255 }, Char = { -128, 10, 127 }, Short = { -32768, 12, 32767 },
   Int = { -2147483648, 5, 2147483647 }, Long = { -2 ^ 53, 9, 2 ^ 53 }, Float = { -1.5, 0.25, 2 ^ 100 },
   Double = { -1e300, 0.1, 1 / 3 },
}
for _, mode in ipairs { 'binary', 'ascii' } do
   local m = torch.MemoryFile()
   m[mode](m)
   for _, T in ipairs(C.types) do
      local v = values[T]
      assert(m['write' .. T](m, v[1]) == 1)
      assert(m['write' .. T](m, torch[T .. 'Storage']({ v[2], v[3] })) == 2)
      assert(m['write' .. T](m, torch[T .. 'Storage']({ v[1], v[2], v[3] })) == 3)
   end
   assert(m:writeBool(true) == 1 and m:writeBool(false) == 1)
   assert(m:writeString('raw text') == 8)
   m:seek(1)
   for _, T in ipairs(C.types) do
      local v = values[T]
      -- readX(): a number
      assert(m['read' .. T](m) == v[1], T .. ' scalar in ' .. mode)
      -- readX(n): a new storage of n elements
      local s = m['read' .. T](m, 2)
      assert(torch.typename(s) == 'torch.' .. T .. 'Storage' and s:size() == 2 and s[1] == v[2] and s[2] == v[3])
      -- readX(storage): fills it, returns the count
      local into = torch[T .. 'Storage'](3)
      assert(m['read' .. T](m, into) == 3 and into[1] == v[1] and into[3] == v[3], T .. ' into storage')
   end
   assert(m:readBool() == true and m:readBool() == false)
   assert(m:readString('*a') == 'raw text')
   -- End of data: pedantic raises, quiet sets the flag.
   C.fails('read error: read 0 blocks instead of 1', m.readInt, m)
   assert(m:hasError())
   assert(m:clearError() == m and not m:hasError())
   m:quiet()
   assert(m:readDouble() == 0 and m:hasError())
   m:clearError()
   local short = m:readInt(5)
   assert(short:size() == 0 and m:hasError())
   m:clearError()
   assert(m:readObject() == nil and m:hasError())
   m:close()
end

-- Exact ASCII text of the write calls; noAutoSpacing drops separators and newlines.
local a = torch.MemoryFile()
a:writeInt(torch.IntStorage({ 1, 2, 3 }))
a:writeDouble(0.5)
a:writeFloat(0.1)
a:writeChar(torch.CharStorage():string('hi'))
a:writeByte(65)
a:writeLong(torch.LongStorage())
a:noAutoSpacing()
a:writeInt(torch.IntStorage({ 4, 5 }))
a:writeString('\n')
local text = a:storage():string()
assert(text == '1 2 3\n0.5\n0.100000001\nhi\nA\n45\n\0', text)
a:close()

-- Binary Long with longSize(4): 4 bytes each.
local b = torch.MemoryFile():binary():longSize(4)
b:writeLong(torch.LongStorage({ 1, -1 }))
assert(b:position() == 9)
b:seek(1)
assert(b:readLong() == 1 and b:readLong() == -1)
b:close()

-- storage() ends with NUL; a MemoryFile over a storage reads it; the NUL is required.
local w = torch.MemoryFile('w')
assert(w:isWritable() and not w:isReadable())
w:writeString('abc')
local st = w:storage()
assert(torch.typename(st) == 'torch.CharStorage' and st:size() == 4 and st[4] == 0 and st:string() == 'abc\0')
C.fails('attempt to read in a write-only file', w.readInt, w)
w:close()
local r = torch.MemoryFile(st, 'r')
assert(r:isReadable() and not r:isWritable())
assert(r:readString('*a') == 'abc')
C.fails('attempt to write in a read-only file', r.writeInt, r, 1)
r:close()
local rw = torch.MemoryFile(torch.CharStorage():string('xyz\0'))
assert(rw:isReadable() and rw:isWritable())
rw:seekEnd()
rw:writeString('!')
assert(rw:storage():string() == 'xyz!\0')
rw:close()

-- readString: lines, counts and the rest.
local t = torch.MemoryFile(torch.CharStorage():string('one\ntwo\nthree\0'))
assert(t:readString('*l') == 'one' and t:readString('*line') == 'two')
assert(t:readString(2) == 'th' and t:readString('*a') == 'ree' and t:readString('*a') == '')
C.fails('read error', t.readString, t, '*l')
t:close()

-- seek is 1-based, position too; seekEnd goes past the last byte.
local s = torch.MemoryFile()
s:writeString('0123456789')
assert(s:position() == 11)
assert(s:seek(4) == s and s:position() == 4 and s:readString(2) == '34')
assert(s:seekEnd() == s and s:position() == 11)
s:seek(11)
C.fails('unable to seek', s.seek, s, 12)
assert(s:hasError())
s:clearError():quiet()
s:seek(100)
assert(s:hasError())
C.fails('position must be positive', s.seek, s, 0)
s:close()

-- close, then everything says the file is closed.
local c = torch.MemoryFile()
assert(c:close() == c)
C.fails('attempt to use a closed file', c.writeInt, c, 1)
C.fails('attempt to use a closed file', c.readObject, c)
C.fails('attempt to use a closed file', c.storage, c)
C.fails('attempt to use a closed file', c.close, c)
C.fails('attempt to use a closed file', c.position, c)

print('ok')
