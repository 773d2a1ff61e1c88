-- torch.class instances (own write/read honoured, otherwise their fields) and Lua functions with
-- their upvalues.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local C = require 'torch_serialize_common'

for _, mode in ipairs { 'binary', 'ascii' } do
   -- A class without write/read: its fields as a table; the class comes back.
   local Point = torch.class('test' .. mode .. '.Point')
   function Point:__init(x, y) self.x, self.y = x, y end
   function Point:norm2() return self.x * self.x + self.y * self.y end
   local pkg = _G['test' .. mode]
   local p = pkg.Point(3, 4)
   p.tags = { 'a', 'b' }
   local q = C.roundtrip(p, mode)
   assert(torch.typename(q) == 'test' .. mode .. '.Point' and q:norm2() == 25 and q.tags[2] == 'b')

   -- A class with its own write/read: they are called, and read gets the file and the version.
   local Packed = torch.class('test' .. mode .. '.Packed')
   Packed.__version = 3
   local factory_arg
   local mt = torch.getmetatable('test' .. mode .. '.Packed')
   local default_factory = mt.__factory
   mt.__factory = function(file)
      factory_arg = file
      return default_factory()
   end
   function Packed:__init(n) self.n = n end
   function Packed:write(file)
      file:writeInt(self.n)
      file:writeObject(self.extra)
   end
   function Packed:read(file, version)
      self.version = version
      self.n = file:readInt() * 10
      self.extra = file:readObject()
   end
   local pk = pkg.Packed(7)
   pk.extra = { torch.DoubleTensor({ 1 }) }
   local s = torch.serialize(pk, mode)
   assert(s:find('V 3', 1, true))
   local back = torch.deserialize(s, mode)
   assert(torch.typename(back) == 'test' .. mode .. '.Packed' and back.n == 70 and back.version == 3)
   assert(back.extra[1][1] == 1)
   assert(torch.isTypeOf(factory_arg, 'torch.MemoryFile'))

   -- Subclasses inherit the parent's write/read (__write/__read are found too).
   local Base = torch.class('test' .. mode .. '.Base')
   function Base:__write(file) file:writeString('B') end
   function Base:__read(file) self.tag = file:readString(1) end
   local Derived = torch.class('test' .. mode .. '.Derived', 'test' .. mode .. '.Base')
   local dv = C.roundtrip(pkg.Derived(), mode)
   assert(torch.typename(dv) == 'test' .. mode .. '.Derived' and dv.tag == 'B')
   assert(torch.isTypeOf(dv, 'test' .. mode .. '.Base'))

   -- Instances are shared and may point to themselves.
   local node = pkg.Point(1, 2)
   node.next = node
   local pair = C.roundtrip({ node, node }, mode)
   assert(pair[1] == pair[2] and pair[1].next == pair[1])
end

-- A field that cannot be written is skipped with a warning (printed), the rest is kept.
local WithThread = torch.class('WithThread')
local w = _G.WithThread()
w.co = coroutine.create(function() end)
w.keep = 1
local wb = C.roundtrip(w)
assert(wb.keep == 1 and wb.co == nil)

-- Functions: bytecode plus upvalues, in binary and ASCII.
for _, mode in ipairs { 'binary', 'ascii' } do
   local function plain(a, b) return a * b + 1 end
   assert(C.roundtrip(plain, mode)(3, 4) == 13)

   local k, t = 10, { 5 }
   local function closure(x) return x + k + t[1] end
   local c = C.roundtrip(closure, mode)
   assert(c(1) == 16)

   -- Two closures sharing one upvalue cell still share it after loading (debug.upvaluejoin).
   local count = 0
   local function inc() count = count + 1; return count end
   local function get() return count end
   local both = C.roundtrip({ inc = inc, get = get }, mode)
   both.inc()
   both.inc()
   assert(both.get() == 2, 'upvalue not shared: ' .. both.get())
   assert(count == 0)

   -- A recursive function refers to itself through its upvalue.
   local fact
   fact = function(n) if n <= 1 then return 1 end return n * fact(n - 1) end
   local f2 = C.roundtrip(fact, mode)
   assert(f2(5) == 120)

   -- Functions inside tables and shared between entries.
   local shared = function() return 'hi' end
   local tb = C.roundtrip({ a = shared, b = shared, nested = { shared } }, mode)
   assert(tb.a == tb.b and tb.nested[1] == tb.a and tb.a() == 'hi')

   -- Bitwise operators (a header flag of their own in this LuaJIT's dumps).
   local mask = 6
   local bits = C.roundtrip(function(v) return (v & mask) | 1 end, mode)
   assert(bits(12) == 5)

   -- Upvalues holding tensors and tables with cycles.
   local cyc = {}
   cyc.me = cyc
   local ten = torch.IntTensor({ 4, 5 })
   local function uses() return cyc.me == cyc and ten[2] end
   assert(C.roundtrip(uses, mode)() == 5)
end

-- Legacy tags 6 (no index) and 7 (index; upvalue values by position) still load.
local function legacy(tag)
   local y = 41
   local fn = function() return y + 1 end
   local code = string.dump(fn)
   local m = torch.MemoryFile():binary()
   m:writeInt(tag)
   if tag == 7 then m:writeInt(5) end -- an index the upvalue table (index 1) does not use
   m:writeInt(#code)
   m:writeChar(torch.CharStorage():string(code))
   m:writeObject({ 99 })
   local s = m:storage():string():sub(1, -2)
   m:close()
   return torch.deserialize(s)
end
assert(legacy(6)() == 100)
assert(legacy(7)() == 100)

-- writeObject's hook maps every object before it is written.
local m = torch.MemoryFile():binary()
m:writeObject({ t = torch.DoubleTensor({ 1.5 }), n = 2 }, nil, function(o)
   if torch.typename(o) == 'torch.DoubleTensor' then return o:float() end
   if o == 2 then return 3 end
   return o
end)
m:seek(1)
local hooked = m:readObject()
assert(torch.typename(hooked.t) == 'torch.FloatTensor' and hooked.t[1] == 1.5 and hooked.n == 3)
m:close()

-- isWritableObject gives the tag an object would be written with.
local f = torch.MemoryFile()
assert(f:isWritableObject(nil) == 0 and f:isWritableObject(1) == 1 and f:isWritableObject('s') == 2)
assert(f:isWritableObject({}) == 3 and f:isWritableObject(torch.FloatTensor()) == 4)
assert(f:isWritableObject(true) == 5 and f:isWritableObject(function() end) == 8)
assert(f:isWritableObject(os.time) == nil and f:isWritableObject(io.stdout) == nil)
assert(f:isWritableObject(coroutine.create(print)) == nil)
assert(f:isWritableObject(_G.WithThread()) == 4)
f:close()

print('ok')
