-- `t7_exchange.lua save DIR` writes torch.save files (binary and ascii) into DIR;
-- `t7_exchange.lua check DIR` loads them back and checks every value. tests/luarocks.rs saves
-- under one runtime (th, stock luajit) and checks under the other.
local torch = require 'torch'
local mode, dir = arg[1], arg[2]
assert(mode and dir, 'usage: t7_exchange.lua save|check DIR')

local function value()
   torch.manualSeed(11)
   local shared = torch.DoubleTensor(4, 5):uniform()
   return {
      float = torch.FloatTensor({ { 1.5, -2 }, { 3, 4.25 } }),
      double = shared,
      view = shared:narrow(1, 2, 2):t(),
      long = torch.LongTensor({ 1, -2, 2 ^ 40 }),
      byte = torch.ByteTensor({ 0, 255 }),
      storage = torch.IntStorage({ 9, 8, 7 }),
      nested = { 'text', 42, true, { deeper = 1.25 } },
   }
end

local function check(got, what)
   local want = value()
   assert(got.float:equal(want.float) and torch.typename(got.float) == 'torch.FloatTensor', what .. ': float')
   assert(got.double:equal(want.double), what .. ': double')
   assert(got.view:equal(want.view), what .. ': view')
   -- The view still shares its storage with the tensor it came from.
   got.double[3][1] = -1
   assert(got.view[1][2] == -1, what .. ': the view shares storage after the round trip')
   assert(got.long:equal(want.long) and got.byte:equal(want.byte), what .. ': long, byte')
   assert(got.storage:size() == 3 and got.storage[1] == 9 and torch.typename(got.storage) == 'torch.IntStorage',
      what .. ': storage')
   assert(got.nested[1] == 'text' and got.nested[2] == 42 and got.nested[3] == true
      and got.nested[4].deeper == 1.25, what .. ': nested table')
end

for _, format in ipairs({ 'binary', 'ascii' }) do
   local file = dir .. '/value.' .. format .. '.t7'
   if mode == 'save' then
      torch.save(file, value(), format)
   else
      check(torch.load(file, format), format)
   end
end
io.write(mode, ' ok\n')
