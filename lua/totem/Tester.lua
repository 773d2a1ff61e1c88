-- totem.Tester: torch.Tester with command-line options, storage assertions, and eq/ne that can
-- return their outcome instead of recording an assertion.

require 'torch'
local totem = rawget(_G, 'totem') or require 'totem'

local Tester, Parent = torch.class('totem.Tester', 'torch.Tester')

function Tester:__init()
   Parent.__init(self)
   -- assertTensorEq compares the sizes too
   self._assertTensorEqIgnoresDims = false
end

-- Every assertion goes through here. While `self._ret` is set (eq/ne called with ret=true) the
-- outcome is only returned, not counted.
function Tester:_assert_sub(condition, message)
   self._assertSubCalled = true
   if self._ret then
      return condition
   end
   return Parent._assert_sub(self, condition, message)
end

function Tester:_wrapFunctionForRet(ret, f, ...)
   self._ret = ret
   local ok, message = f(...)
   assert(self._assertSubCalled, 'totem.Tester: the assertion did not report its outcome')
   self._ret = nil
   self._assertSubCalled = nil
   return ok, message
end

-- eq(got, expected [, message] [, tolerance] [, ret]): torch.Tester's eq; with ret true, only
-- returns whether they are equal.
function Tester:eq(got, expected, message, tolerance, ret)
   return self:_wrapFunctionForRet(ret, Parent.eq, self, got, expected, message, tolerance)
end

function Tester:ne(got, expected, message, tolerance, ret)
   return self:_wrapFunctionForRet(ret, Parent.ne, self, got, expected, message, tolerance)
end

-- Storages are equal when they have the same type and size and differ by at most `tolerance`.
function Tester:assertStorageEq(sa, sb, tolerance, message)
   return Parent.eq(self, sa, sb, tolerance, message)
end

function Tester:assertStorageNe(sa, sb, tolerance, message)
   return Parent.ne(self, sa, sb, tolerance, message)
end

function Tester:_listTests(tests)
   for name in pairs(tests) do
      print(name)
   end
end

-- The options run() understands on the command line (in pl.lapp's syntax; totem-run reuses it).
Tester.CLoptions = [[
    --list print the names of the tests instead of running them.
    --log-output (optional file-out) also write a compact result to this file, a line per test:
        name #passed-assertions #failed-assertions #exceptions
    --summary print only whether each test passed, not the failure messages.
    --early-abort (optional boolean) stop at the first failing test.
    --rethrow (optional boolean) let errors propagate (and the program crash) where they happen.
    ]]

local function parse_command_line()
   local lapp = require 'pl.lapp'
   return lapp([[
Run tests

Usage:

  ]] .. tostring(arg[0]) .. [[ [options] [test1 [test2...] ]

Options:

]] .. Tester.CLoptions .. [[

Tests named on the command line are run; without names, all of them are.

]])
end

-- run([names]): when the script has command-line arguments (the global `arg`), they select the
-- tests and set the options above.
function Tester:run(testNames)
   if rawget(_G, 'arg') then
      local args = parse_command_line()
      if #args > 0 then
         testNames = args
      end
      if args.list then
         self:_listTests(self:_getTests(testNames))
         return 0
      end
      if args.summary then self:setSummaryOnly(true) end
      if args.early_abort then self:setEarlyAbort(true) end
      if args.rethrow then self:setRethrowErrors(true) end
      if args.log_output then self.extraOutputFile = args.log_output end
   end
   Parent.run(self, testNames)
end

function Tester:_run(tests)
   Parent._run(self, tests)
   if self.extraOutputFile then
      self:_logExtraOutput(tests)
   end
end

function Tester:_logExtraOutput(tests)
   local file = self.extraOutputFile
   local passed, failed, errors = 0, 0, 0
   for name in pairs(tests) do
      local p = self.assertionPass[name] or 0
      local f = self.assertionFail[name] or 0
      local e = self.testError[name] or 0
      passed, failed, errors = passed + p, failed + f, errors + e
      file:write(table.concat({ tostring(name), p, f, e }, ' '), '\n')
   end
   file:write(table.concat({ '[total]', passed, failed, errors }, ' '), '\n')
   file:close()
end

return Tester
