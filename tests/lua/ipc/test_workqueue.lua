-- torch-ipc's test_workqueue cases (reference C.3), written for our ipc with the regress harness:
-- one named queue 'test' and one echo thread for the whole file.
local test = require 'regress'
local ipc = require 'libipc'

local q = ipc.workqueue('test')

local echo = ipc.map(1, function()
   local ipc = require 'libipc'
   local torch = require 'torch'
   local lib = {}
   torch.class('lib.class', lib)
   local q = ipc.workqueue('test')
   while true do
      local msg = q:read()
      if type(msg) == 'table' and msg.closure then
         q:writeup(msg[1])
      elseif msg == nil then
         break
      else
         if torch.typename(msg) == 'lib.class' then
            msg.reply = true
         elseif torch.isTensor(msg) and msg:nElement() == 1 then
            msg:fill(13)
         elseif type(msg) == 'table' and torch.typename(msg.f) then
            msg.f:fill(42)
         end
         q:write(msg)
      end
   end
   q:close()
end)

local function deepEqual(a, b)
   if type(a) ~= type(b) then return false end
   if type(a) ~= 'table' then return a == b end
   for k, v in pairs(a) do if not deepEqual(v, b[k]) then return false end end
   for k in pairs(b) do if a[k] == nil then return false end end
   return true
end

local lib = {}
torch.class('lib.class', lib)

test {
   testBooleans = function()
      q:write(true)
      test.mustBeTrue(q:read() == true, 'true')
      q:write(false)
      test.mustBeTrue(q:read() == false, 'false')
   end,

   testNumbers = function()
      q:write(42.13)
      test.mustBeTrue(q:read() == 42.13, '42.13')
   end,

   testStrings = function()
      q:write('hello world')
      test.mustBeTrue(q:read() == 'hello world', 'string')
   end,

   testArrays = function()
      local t = { 1, 2, 3, { 4, 5 } }
      q:write(t)
      test.mustBeTrue(deepEqual(q:read(), t), 'array')
   end,

   testTables = function()
      local t = { a = 1, b = 'two', c = { d = { e = true } } }
      q:write(t)
      test.mustBeTrue(deepEqual(q:read(), t), 'table')
   end,

   testMetaTables = function()
      local obj = lib.class()
      q:write(obj)
      local back = q:read()
      test.mustBeTrue(torch.typename(back) == torch.typename(obj), 'class kept: ' .. tostring(torch.typename(back)))
      test.mustBeTrue(back.reply == true, 'the worker saw a lib.class')
      local cmd = torch.CmdLine()
      cmd.inner = torch.CmdLine()
      cmd.id = 1234
      q:write(cmd)
      local cmd2 = q:read()
      test.mustBeTrue(torch.typename(cmd2) == 'torch.CmdLine', 'CmdLine kept')
      test.mustBeTrue(torch.typename(cmd2.inner) == 'torch.CmdLine', 'nested CmdLine kept')
      test.mustBeTrue(cmd2.id == 1234, 'field kept')
   end,

   testFunctions = function()
      local f = function(a, b) return a * b + 1 end
      q:write(f)
      local g = q:read()
      test.mustBeTrue(g(6, 7) == f(6, 7), 'same result')
   end,

   testClosures = function()
      local bias1, bias2, bias3 = 10, 20, 30
      local f0 = function(x) return x + bias3 + math.floor(0.5) end
      local f = function(x) return f0(x) + bias1 + bias2 end
      q:writeup({ f, closure = true })
      local g = q:read()
      test.mustBeTrue(g(1) == f(1), 'closure computed the same: ' .. tostring(g(1)))
   end,

   testTensors = function()
      local t = torch.randn(10)
      q:write(t)
      local back = q:read()
      for i = 1, 10 do test.mustBeTrue(back[i] == t[i], 'element ' .. i) end
   end,

   testTensorsTwoWay = function()
      local t = torch.FloatTensor(1)
      q:write(t)
      local back = q:read()
      test.mustBeTrue(back[1] == 13, 'filled by the worker')
      test.mustBeTrue(t[1] == 13, 'shared with the original')
   end,

   testTensorsInTable = function()
      local t = { f = torch.FloatTensor(1) }
      q:write(t)
      local back = q:read()
      test.mustBeTrue(back.f[1] == 42, 'filled by the worker')
   end,

   testDrain = function()
      for i = 1, 13 do q:write(i) end
      q:drain()
      for i = 1, 13 do test.mustBeTrue(q:read(true) == i, 'answer ' .. i) end
      test.mustBeTrue(q:read(true) == nil, 'nothing more')
   end,

   testMultiWrite = function()
      local t = {}
      for i = 1, 13 do t[i] = i end
      q:write(unpack(t))
      for i = 1, 13 do test.mustBeTrue(q:read() == i, 'item ' .. i) end
   end,

   testDualStalls = function()
      local ds = ipc.workqueue('ds', 16)
      local m = ipc.map(1, function()
         local ipc = require 'libipc'
         local q = ipc.workqueue('ds', 16)
         local sum = 0
         while true do
            local v = q:read()
            if v == nil then break end
            sum = sum + v
         end
         return sum
      end)
      for i = 1, 100 do ds:write(i) end
      ds:write(nil)
      test.mustBeTrue(m:join() == 5050, 'sum')
      ds:close()
   end,

   testAnon = function()
      local anon = ipc.workqueue()
      local mutex = ipc.mutex()
      local m = ipc.map(1, function(q, mutex)
         q:write(1)
         local v = q:read()
         mutex:barrier(2)
         q:write(not v)
      end, anon, mutex)
      test.mustBeTrue(anon:read() == 1, 'first answer')
      anon:write(false)
      anon:close()
      anon = nil
      collectgarbage()
      mutex:barrier(2)
      m:join()
   end,

   testCheckCreator = function()
      local q2, creator = ipc.workqueue('test name')
      test.mustBeTrue(creator == 1, 'creator in the main thread')
      local m = ipc.map(1, function()
         local ipc = require 'libipc'
         local q, creator = ipc.workqueue('test name')
         q:write(creator)
      end)
      test.mustBeTrue(q2:read() == 0, 'not the creator in the worker')
      m:join()
      q2:close()
   end,
}

q:write(nil)
echo:join()
q:close()
