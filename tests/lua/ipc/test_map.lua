-- torch-ipc's test_map cases (reference C.3), written for our ipc with the regress harness.
local test = require 'regress'
local ipc = require 'libipc'

test {
   testSingle = function()
      local r = ipc.map(1, function(y) return y end, 42):join()
      test.mustBeTrue(r == 42, 'expected 42, got ' .. tostring(r))
   end,

   testMultiple = function()
      local a, b, c = ipc.map(1, function() return 'hi', 42, { k = 2 } end):join()
      test.mustBeTrue(a == 'hi', 'first value')
      test.mustBeTrue(b == 42, 'second value')
      test.mustBeTrue(type(c) == 'table' and c.k == 2, 'table copied back')
   end,

   testSingleWithN = function()
      local r = { ipc.map(3, function(y) return y end, 42):join() }
      test.mustBeTrue(#r == 3, 'three results')
      for i = 1, 3 do test.mustBeTrue(r[i] == 42, 'result ' .. i) end
   end,

   testMultipleWithN = function()
      local r = { ipc.map(2, function(id) return id, id * 10, 'x' end):join() }
      test.mustBeTrue(#r == 6, 'six results')
      local want = { 1, 10, 'x', 2, 20, 'x' }
      for i = 1, 6 do test.mustBeTrue(r[i] == want[i], 'result ' .. i) end
   end,

   testNil = function()
      local a, b = ipc.map(1, function(x, y) return x, y end, nil, 42):join()
      test.mustBeTrue(a == nil, 'nil kept in place')
      test.mustBeTrue(b == 42, 'value after the nil')
   end,

   testErrors = function()
      local ok, msg = pcall(function() return ipc.map(1, function() error('boom') end):join() end)
      test.mustBeFalse(ok, 'join raised')
      test.mustBeTrue(type(msg) == 'string', 'a string message')
   end,

   testMoreErrors = function()
      local ok, msg = pcall(function()
         return ipc.map(2, function(id) if id == 2 then error('boom') end return id end):join()
      end)
      test.mustBeFalse(ok, 'join raised')
      test.mustBeTrue(type(msg) == 'string', 'a string message')
   end,

   testUpvalueError = function()
      aGlobalOfTheMainThread = 55
      local r = ipc.map(1, function() return (aGlobalOfTheMainThread or 55) + 1 end):join()
      test.mustBeTrue(r == 56, 'a global of the caller is not seen')
      r = ipc.map(1, function()
         local function inner(x) return x + 1 end
         return inner(45)
      end):join()
      test.mustBeTrue(r == 46, 'a nested function works')
      local i, j = 1, 2
      local ok = pcall(function() return ipc.map(1, function() return i + j end) end)
      test.mustBeFalse(ok, 'a closure over locals is refused')
      aGlobalOfTheMainThread = nil
   end,

   testCheckErrors = function()
      local c = ipc.channel()
      local m = ipc.map(2, function(c, id)
         if id == 1 then error('boom') end
         c:read() -- thread 2 keeps running until released
         return 42
      end, c)
      -- Thread 1 fails at once; poll until checkErrors sees it (it never blocks).
      local ok
      repeat
         ok = pcall(m.checkErrors, m)
         if ok then sys.sleep(0.01) end
      until not ok
      c:write('go')
      local r = m:join()
      test.mustBeTrue(r == 42, 'join returns the remaining thread')
   end,

   testLuaCheckStack = function()
      local n = 1000
      local r = { ipc.map(n, function() return 1 end):join() }
      test.mustBeTrue(#r == n, n .. ' results, got ' .. #r)
   end,

   testLastArg = function()
      local r = { ipc.map(4, function(s, id) return id end, 'hi'):join() }
      for i = 1, 4 do test.mustBeTrue(r[i] == i, 'mapid ' .. i) end
   end,

   testBigArguments = function()
      local big = {}
      for i = 1, 1000 do big[i] = i end
      local r = { ipc.map(3, function(t) return #t end, big):join() }
      for i = 1, 3 do test.mustBeTrue(r[i] == 1000, 'size seen by thread ' .. i) end
   end,

   testBigReturns = function()
      local r = { ipc.map(3, function()
         local t = {}
         for i = 1, 1000 do t[i] = i end
         return t
      end):join() }
      for i = 1, 3 do test.mustBeTrue(#r[i] == 1000, 'size returned by thread ' .. i) end
   end,

   testFunctionMapId = function()
      local big = {}
      for i = 1, 1000 do big['k' .. i] = i end
      local opt = { big, 1, 'str', ipc.mutex(), true, torch.Tensor(10), 2 }
      local r = { ipc.map(2, function(opt, mapid)
         local test = require 'regress'
         local torch = require 'torch'
         test.mustBeTrue(torch.type(opt) == 'table', 'opt is a table')
         test.mustBeTrue(type(mapid) == 'number', 'mapid is a number')
         return mapid
      end, opt):join() }
      test.mustBeTrue(r[1] == 1 and r[2] == 2, 'mapids')
   end,
}
