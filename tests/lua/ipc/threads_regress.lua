-- The regress harness itself: the assertions, a run that passes, and (with the argument `fail`) a
-- run with failing cases, which must report each failure and raise at the end.
package.path = (debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. '?.lua;' .. package.path
local H = require 'threads_helpers'
local test = require 'regress'
local ipc = require 'libipc'

if arg[1] == 'fail' then
   test {
      passes = function() test.mustBeTrue(true) end,
      truthyIsNotTrue = function() test.mustBeTrue(1, 'one is not true') end,
      errorsInWorkers = function()
         ipc.map(1, function()
            local test = require 'regress'
            test.mustBeTrue(false, 'failed inside a worker')
         end):join()
      end,
   }
   print('not reached')
   return
end

test {
   mustBeTrueIsStrict = function()
      test.mustBeTrue(true)
      H.raises('1', function() test.mustBeTrue(1, 'msg one') end, 'msg one')
      H.raises('string', function() test.mustBeTrue('yes') end, 'expected true')
      H.raises('nil', function() test.mustBeTrue(nil) end, 'expected true, got nil')
   end,

   mustBeFalseIsStrict = function()
      test.mustBeFalse(false)
      H.raises('nil', function() test.mustBeFalse(nil, 'nil is not false') end, 'nil is not false')
   end,

   mustExist = function()
      test.mustExist(0)
      test.mustExist('')
      test.mustExist({})
      H.raises('nil', function() test.mustExist(nil, 'missing') end, 'missing')
      H.raises('false', function() test.mustExist(false) end, 'expected a value')
   end,

   shouldFunctionsWarnWithoutFailing = function()
      test.shouldBeTrue(1, 'a warning')
      test.shouldBeFalse(true)
      test.shouldExist(nil)
      test.shouldBeTrue(true)
   end,

   failuresPointAtTheCaller = function()
      local ok, msg = pcall(function() test.mustBeTrue(false, 'here') end)
      assert(not ok and msg:find('threads_regress.lua', 1, true), msg)
   end,

   usableInWorkers = function()
      local r = ipc.map(2, function(id)
         local test = require 'regress'
         test.mustBeTrue(id >= 1, 'mapid')
         test.mustExist(test.run, 'run')
         return pcall(test.mustBeTrue, 'no')
      end):join()
      H.eq(r, false, 'a failed assertion in a worker')
   end,

   nestedRunsAndAscii = function()
      test.ascii()
      H.eq(test.run({ inner = function() end }), true, 'a nested run that passes')
      H.raises('a nested run that fails', function() test { bad = function() error('x') end } end,
         'regress: 1 of 1 tests failed', 'bad')
      H.raises('not a table', function() test.run(5) end, 'expected a table of test functions')
      H.raises('not a function', function() test { x = 5 } end, 'test x is a number')
   end,
}
print('ok')
