-- Loads one real Torch7 file from tests/fixtures/t7 (named by arg[1]) and checks what its README
-- says it holds, or the error it says loading must give.
local name = assert(arg[1], 'fixture name expected')
local dir = '../fixtures/t7/'
local path = dir .. name .. '.t7'

local function read_bytes(p)
   local f = assert(io.open(p, 'rb'))
   local s = f:read('*a')
   f:close()
   return s
end

local function count(t)
   local n = 0
   for _ in pairs(t) do n = n + 1 end
   return n
end

local function fails_with(pattern)
   local ok, err = pcall(torch.load, path)
   assert(not ok, name .. ' loaded but should not')
   assert(tostring(err):find(pattern, 1, true), 'unexpected error: ' .. tostring(err))
   -- The same bytes through torch.deserialize fail the same way.
   local ok2, err2 = pcall(torch.deserialize, read_bytes(path))
   assert(not ok2 and tostring(err2):find(pattern, 1, true), tostring(err2))
end

local checks = {}

function checks.doubletensor()
   local t = torch.load(path)
   assert(torch.typename(t) == 'torch.DoubleTensor')
   assert(t:dim() == 2 and t:size(1) == 2 and t:size(2) == 3)
   local want = { { 1, 2, 3 }, { 4, 5, 6.9 } }
   for i = 1, 2 do
      for j = 1, 3 do assert(t[i][j] == want[i][j], i .. ',' .. j) end
   end
   -- Writing it back gives the very bytes real Torch wrote.
   assert(torch.serialize(t) == read_bytes(path))
end

function checks.floattensor()
   local t = torch.load(path)
   assert(torch.typename(t) == 'torch.FloatTensor')
   assert(math.abs(t:sum() - 12.97241666913) < 1e-5, t:sum())
   assert(torch.serialize(t) == read_bytes(path))
end

checks['hello=123'] = function()
   local t = torch.load(path)
   assert(type(t) == 'table' and t.hello == 123 and count(t) == 1)
   assert(torch.serialize({ hello = 123 }) == read_bytes(path))
end

function checks.list_table()
   local t = torch.load(path)
   assert(count(t) == 4)
   assert(t[1] == 'hello' and t[2] == 'world' and t[3] == 'third item' and t[4] == 123)
end

function checks.map_table1()
   local t = torch.load(path)
   assert(type(t) == 'table' and count(t) == 5)
   assert(t[0] == 'zero' and t[1] == 'hello' and t[4] == 123)
end

function checks.map_table2()
   local t = torch.load(path)
   assert(type(t) == 'table' and count(t) == 5)
   assert(t.a == 'non number key' and t[3] == 'third item')
end

function checks.recursive_kv_table()
   local t = torch.load(path)
   assert(count(t) == 1)
   local k, v = next(t)
   assert(k == t and v == t)
end

function checks.recursive_class()
   fails_with('unknown Torch class <A>')
   torch.class('A')
   local a = torch.load(path)
   assert(torch.typename(a) == 'A')
   assert(a.a == a)
end

function checks.custom_class()
   fails_with('unknown Torch class <Blah>')
   torch.class('Blah')
   local b = torch.load(path)
   assert(torch.typename(b) == 'Blah')
   assert(torch.isTypeOf(b, 'Blah'))
end

local function warns_and_gives_nil()
   -- Torch-era LuaJIT 2.0 bytecode cannot load here: a warning on stderr and nil, no crash.
   local v = torch.load(path)
   assert(v == nil)
end
checks['function'] = warns_and_gives_nil
checks.function_upvals = function()
   warns_and_gives_nil()
   -- The upvalue table after the bytecode was still read: the whole file was consumed.
   local f = torch.DiskFile(path, 'r'):binary()
   assert(f:readObject() == nil)
   local pos = f:position()
   f:seekEnd()
   assert(f:position() == pos, 'the reader stopped at ' .. pos)
   f:close()
end

function checks.tds_hash()
   fails_with('unknown Torch class <tds.Hash>')
   -- tds writes its own payload: a long count, then key/value objects.
   local Hash = torch.class('tds.Hash')
   function Hash:read(f, version)
      assert(version == 0)
      local n = f:readLong()
      for _ = 1, n do
         local k = f:readObject()
         rawset(self, k, f:readObject())
      end
   end
   local h = torch.load(path)
   assert(torch.typename(h) == 'tds.Hash')
   assert(count(h) == 3 and h[1] == 2 and h[10] == 11, tostring(h[1]))
end

function checks.tds_vec()
   fails_with('unknown Torch class <tds.Vec>')
   local Vec = torch.class('tds.Vec')
   function Vec:read(f, version)
      for i = 1, f:readLong() do rawset(self, i, f:readObject()) end
   end
   local v = torch.load(path)
   assert(torch.typename(v) == 'tds.Vec')
   assert(count(v) == 2 and v[1] == 123 and v[2] == 456)
end

function checks.nngraph_node()
   fails_with('unknown Torch class <nngraph.Node>')
end

function checks.gmodule_with_linear_identity()
   fails_with('unknown Torch class <nn.gModule>')
end

local check = assert(checks[name], 'no check for fixture ' .. name)
check()
print('ok ' .. name)
