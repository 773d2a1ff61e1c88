-- torch.Tester and torch.TestSuite: the unit-test harness Torch packages use.
--
--   local tests = torch.TestSuite()
--   local tester = torch.Tester()
--   function tests.addition() tester:eq(1 + 1, 2, 'one and one') end
--   tester:add(tests):run()
--
-- run() writes one line per test ('1/3 name ....... [WAIT]' while it runs, then '\r' and the same
-- line with [PASS], [FAIL], [ERROR] or [SKIP]; 80 columns), a summary, then the failures, errors and
-- warnings with where they happened, each closed by a line of dashes; it raises an error if any
-- test failed. Tests run in the order of their names (Torch's ran in hash order).
-- Everything is written with io.write (looked up at each call, so a caller may redirect it).
--
-- Every assertion ends in self:_success() or self:_failure(message) and returns what that hook
-- returns (true, or false); a Tester may override the two hooks, as Torch's own tests do.

local torch = require 'torch'

---------------------------------------------------------------------------------------------------
-- TestSuite: a table of tests that refuses a second test of the same name (a common copy-paste
-- mistake that would silently drop the first test) and anything that is not a function. The tests
-- live in the raw field __tests so that every assignment goes through __newindex.

local TestSuite = torch.class('torch.TestSuite')

function TestSuite:__init()
   rawset(self, '__tests', {})
   rawset(self, '__isTestSuite', true)
end

TestSuite.__newindex = function(self, name, f)
   local tests = rawget(self, '__tests')
   if tests[name] ~= nil then
      error('Test ' .. tostring(name) .. ' is already defined.', 2)
   end
   if type(f) == 'table' then
      error('Nested tables of tests are not supported', 2)
   elseif type(f) ~= 'function' then
      error('Only functions are supported as members of a TestSuite', 2)
   end
   tests[name] = f
end

TestSuite.__index = function(self, name)
   local tests = rawget(self, '__tests')
   if tests and tests[name] ~= nil then return tests[name] end
   return TestSuite[name]
end

---------------------------------------------------------------------------------------------------

local Tester = torch.class('torch.Tester')

local NCOLS = 80
local THIS_FILE = 'torch/Tester.lua'
local THIS_FRAME = '\n[^\n]*torch/Tester%.lua' -- a traceback line in this file

local function out(s)
   io.write(s)
end

-- Torch's colours for the run's lines and summary, at a terminal only (Torch coloured files and
-- pipes too, which leaves escapes in logs). Decided at each run.
local paint
local STATUS_COLOUR = { PASS = 'green', FAIL = 'red', ERROR = 'magenta', SKIP = 'yellow' }
local function choose_colours()
   local ok, sys = pcall(require, 'sys')
   if ok and sys.isatty and sys.isatty(1) and os.getenv('TERM') ~= 'dumb' then
      local c = sys.COLORS
      paint = function(s, colour) return c[colour] .. s .. c.none end
   else
      paint = function(s) return s end
   end
end

function Tester:__init()
   self.tests = {}
   self.disabledTests = {}
   self.errors = {}
   self.warnings = {}
   self._warningCount = {}
   self._currentTestName = ''
   self.countasserts = 0
   -- Torch's compatibility rule: assertTensorEq compares the elements only, so {{1}} equals {1}
   -- (with a warning). eq/ne and the other general comparisons always check the dimensions.
   self._assertTensorEqIgnoresDims = true
end

function Tester:setEarlyAbort(earlyAbort) self.earlyAbort = earlyAbort end
function Tester:setRethrowErrors(rethrow) self.rethrow = rethrow end
function Tester:setSummaryOnly(summaryOnly) self.summaryOnly = summaryOnly end

-- The traceback of the caller: Tester frames skipped, then up to two frames of the test (the
-- assert may be in a helper), stopping where the Tester called the test.
local function where()
   local tb = debug.traceback('', 2)
   local frames = {}
   local in_test = false
   for line in tb:gmatch('\n([^\n]+)') do
      local ours = line:find(THIS_FILE, 1, true) ~= nil
      local native = line:find('^%s*%[C%]') or line:find('^%s*%[builtin')
      if in_test and (ours or native or #frames >= 2) then break end
      if not ours and not native and not line:find('stack traceback:', 1, true) then
         in_test = true
         frames[#frames + 1] = line
      end
   end
   return 'stack traceback:\n' .. table.concat(frames, '\n')
end

-- The stack level, as seen from the function calling this one, of the first frame outside this
-- file: where an error about the caller's arguments should point.
local function caller_level()
   local level = 2
   while true do
      local info = debug.getinfo(level + 1, 'S')
      if info == nil then return 1 end
      if not info.source:find(THIS_FILE, 1, true) then return level end
      level = level + 1
   end
end

local function with_context(self, message)
   local name = tostring(self._currentTestName)
   return (name ~= '' and (name .. '\n') or '') .. message .. '\n' .. where()
end

local function bump(counts, name)
   if counts then counts[name] = (counts[name] or 0) + 1 end
end

function Tester:_success()
   bump(self.assertionPass, self._currentTestName)
   return true
end

function Tester:_failure(message)
   if self.rethrow then error(message, caller_level()) end
   bump(self.assertionFail, self._currentTestName)
   self.errors[#self.errors + 1] = with_context(self, message)
   return false
end

function Tester:_warning(message)
   bump(self._warningCount, self._currentTestName)
   self.warnings[#self.warnings + 1] = with_context(self, message)
end

function Tester:_assert_sub(condition, message)
   if condition then
      return self:_success()
   end
   return self:_failure(message)
end

---------------------------------------------------------------------------------------------------
-- Optional trailing arguments of the assertions.

-- (message): a string, or nothing; anything after it is a mistake worth an error.
local function message_of(...)
   if select('#', ...) > 1 and next({ select(2, ...) }) ~= nil then
      error('Unexpected arguments passed to test function', caller_level())
   end
   local message = ...
   if message == nil then return '' end
   if type(message) ~= 'string' then
      error('message parameter must be a string', caller_level())
   end
   return message == '' and '' or (message .. '\n')
end

-- (tolerance, message) in either order, both optional.
local function tolerance_and_message(default, ...)
   local tolerance, message
   for i = 1, select('#', ...) do
      local a = select(i, ...)
      if type(a) == 'string' then
         if message then error('Unexpected string argument; already have message', caller_level()) end
         message = a .. '\n'
      elseif type(a) == 'number' then
         if tolerance then error('Unexpected number argument; already have tolerance', caller_level()) end
         if a < 0 then error('tolerance cannot be negative', caller_level()) end
         tolerance = a
      elseif a ~= nil then
         error('Unrecognized argument; should be a tolerance or message', caller_level())
      end
   end
   return tolerance or default, message or ''
end

---------------------------------------------------------------------------------------------------
-- Comparisons. Each returns whether the check passed (already negated when `negate`), and a
-- description of the difference (or of the equality, when negated).

local compare -- compare(got, expected, tolerance, negate), defined below

-- Byte, Char and Short differences would wrap around; compare those as doubles.
local WIDEN = { ['torch.ByteTensor'] = true, ['torch.CharTensor'] = true, ['torch.ShortTensor'] = true }

local function largest_difference(a, b)
   local n = a:nElement()
   if n == 0 then return 0 end
   if WIDEN[torch.typename(a)] or not a.abs then a, b = a:double(), b:double() end
   local diff = a:contiguous():view(n) - b:contiguous():view(n)
   return diff:abs():max()
end

local function contents_equal(a, b, tolerance, negate, what)
   local diff = largest_difference(a, b)
   local ok = diff <= tolerance
   if negate then ok = not ok end
   if ok then return true end
   return false, string.format('%s%s violation: max diff=%s, tolerance=%s', what,
      negate and 'NE(==)' or 'EQ(==)', tostring(diff), tostring(tolerance))
end

local function tensors_equal(a, b, tolerance, negate, elementsOnly)
   if not torch.isTensor(b) then
      return negate, 'The tensors have different types'
   end
   if not elementsOnly and a:dim() ~= b:dim() then
      return negate, 'The tensors have different dimensions'
   end
   if torch.typename(a) ~= torch.typename(b) then
      return negate, 'The tensors have different types'
   end
   if a:dim() == 0 and b:dim() == 0 then
      return not negate, 'Both tensors are empty'
   end
   local sameSize
   if elementsOnly then
      sameSize = a:nElement() == b:nElement()
   else
      sameSize = a:isSameSizeAs(b)
   end
   if not sameSize then
      return negate, 'The tensors have different sizes'
   end
   return contents_equal(a, b, tolerance, negate, 'Tensor')
end

local function storages_equal(a, b, tolerance, negate)
   if not torch.isStorage(b) or torch.typename(a) ~= torch.typename(b) then
      return negate, 'The storages have different types'
   end
   if a:size() ~= b:size() then
      return negate, 'The storages have different sizes'
   end
   if a:size() == 0 then
      return not negate, 'Both storages are empty'
   end
   local T = torch[torch.typename(a):match('^torch%.(.*)Storage$') .. 'Tensor']
   return contents_equal(T(a), T(b), tolerance, negate, 'Storage')
end

-- Tables are walked breadth first, so that the difference reported is the shallowest one.
local function tables_equal(t1, t2, tolerance, negate)
   local queue = { { t1, t2, nil } }
   local head = 1
   while queue[head] do
      local a, b, path = queue[head][1], queue[head][2], queue[head][3]
      head = head + 1
      local function at(key)
         return path and (path .. '.' .. tostring(key)) or tostring(key)
      end
      for key, va in pairs(a) do
         local vb = b[key]
         if vb == nil then
            return negate, string.format('Entry %s missing in second table (is %s in first)', at(key), tostring(va))
         end
         if type(va) == 'table' and type(vb) == 'table' then
            queue[#queue + 1] = { va, vb, at(key) }
         else
            local ok, why = compare(va, vb, tolerance, false)
            if not ok then
               return negate, 'At table location ' .. at(key) .. ': ' .. why
            end
         end
      end
      for key, vb in pairs(b) do
         if a[key] == nil then
            return negate, string.format('Entry %s missing in first table (is %s in second)', at(key), tostring(vb))
         end
      end
   end
   return not negate, 'The tables are equal'
end

compare = function(got, expected, tolerance, negate)
   if type(got) ~= type(expected) then
      if negate then return true end
      return false, 'EQ failed: values have different types (first: ' .. type(got) ..
         ', second: ' .. type(expected) .. ')'
   end
   if type(got) == 'number' then
      local ok = math.abs(got - expected) <= tolerance
      if negate then ok = not ok end
      if ok then return true end
      local why = negate and string.format('NE failed: %s == %s', tostring(got), tostring(expected))
         or string.format('EQ failed: %s ~= %s', tostring(got), tostring(expected))
      if tolerance > 0 then why = why .. ' with tolerance=' .. tostring(tolerance) end
      return false, why
   end
   if type(expected) == 'table' then
      return tables_equal(got, expected, tolerance, negate)
   end
   if torch.isTensor(got) then
      return tensors_equal(got, expected, tolerance, negate, false)
   end
   if torch.isStorage(got) then
      return storages_equal(got, expected, tolerance, negate)
   end
   local ok = got == expected
   if negate then ok = not ok end
   if ok then return true end
   return false, string.format(negate and 'NE failed: %s (%s) == %s (%s)' or 'EQ failed: %s (%s) ~= %s (%s)',
      tostring(got), type(got), tostring(expected), type(expected))
end

---------------------------------------------------------------------------------------------------
-- Assertions.

function Tester:assert(condition, ...)
   local message = message_of(...)
   if type(condition) ~= 'boolean' then
      self:_warning(' :assert should only be used for boolean conditions; to check that a value '
         .. 'is not nil, say so: tester:assert(value ~= nil).')
   end
   return self:_assert_sub(condition, message .. 'BOOL violation condition=' .. tostring(condition))
end

local ordering = {
   assertlt = { function(a, b) return a < b end, 'LT failed: %s >= %s' },
   assertgt = { function(a, b) return a > b end, 'GT failed: %s <= %s' },
   assertle = { function(a, b) return a <= b end, 'LE failed: %s > %s' },
   assertge = { function(a, b) return a >= b end, 'GE failed: %s < %s' },
}
for method, spec in pairs(ordering) do
   Tester[method] = function(self, a, b, ...)
      local message = message_of(...)
      return self:_assert_sub(spec[1](a, b), message .. string.format(spec[2], tostring(a), tostring(b)))
   end
end

function Tester:asserteq(a, b, ...)
   local message = message_of(...)
   return self:_assert_sub(a == b, message .. string.format('EQ failed: %s ~= %s', tostring(a), tostring(b)))
end

function Tester:assertne(a, b, ...)
   local message = message_of(...)
   if (type(a) == 'table' and type(b) == 'table') or type(a) == 'userdata' then
      self:_warning(' :assertne should only be used to compare basic lua values (numbers, strings, '
         .. 'booleans); for objects use :assertGeneralNe, or :assert(a ~= b) to compare identities.')
   end
   return self:_assert_sub(a ~= b, message .. string.format('NE failed: %s == %s', tostring(a), tostring(b)))
end

function Tester:assertalmosteq(a, b, ...)
   local tolerance, message = tolerance_and_message(1e-16, ...)
   return self:_assert_sub(math.abs(a - b) <= tolerance, message ..
      string.format('ALMOST_EQ failed: %s ~= %s with tolerance=%s', tostring(a), tostring(b), tostring(tolerance)))
end

function Tester:_eqOrNeq(got, expected, negate, ...)
   local tolerance, message = tolerance_and_message(0, ...)
   local ok, why = compare(got, expected, tolerance, negate)
   return self:_assert_sub(ok, message .. (why or ''))
end

function Tester:assertGeneralEq(got, expected, ...) return self:_eqOrNeq(got, expected, false, ...) end
function Tester:assertGeneralNe(got, unexpected, ...) return self:_eqOrNeq(got, unexpected, true, ...) end
function Tester:eq(got, expected, ...) return self:_eqOrNeq(got, expected, false, ...) end
function Tester:ne(got, unexpected, ...) return self:_eqOrNeq(got, unexpected, true, ...) end

function Tester:_assertTensorEqOrNeq(ta, tb, negate, ...)
   if not torch.isTensor(ta) then error('First argument should be a Tensor', caller_level()) end
   if not torch.isTensor(tb) then error('Second argument should be a Tensor', caller_level()) end
   local tolerance, message = tolerance_and_message(0, ...)
   local elementsOnly = self._assertTensorEqIgnoresDims
   local ok, why = tensors_equal(ta, tb, tolerance, negate, elementsOnly)
   if elementsOnly and ok and not negate and not ta:isSameSizeAs(tb) then
      self:_warning('The tensors are equal element by element but different dimensions: '
         .. ':assertTensorEq accepts that for compatibility, which may change; '
         .. ':eq compares the dimensions too.')
   end
   return self:_assert_sub(ok, message .. (why or ''))
end

function Tester:assertTensorEq(ta, tb, ...) return self:_assertTensorEqOrNeq(ta, tb, false, ...) end
function Tester:assertTensorNe(ta, tb, ...) return self:_assertTensorEqOrNeq(ta, tb, true, ...) end

function Tester:_assertTableEqOrNeq(ta, tb, negate, ...)
   if type(ta) ~= 'table' then error('First argument should be a Table', caller_level()) end
   if type(tb) ~= 'table' then error('Second argument should be a Table', caller_level()) end
   return self:_eqOrNeq(ta, tb, negate, ...)
end

function Tester:assertTableEq(ta, tb, ...) return self:_assertTableEqOrNeq(ta, tb, false, ...) end
function Tester:assertTableNe(ta, tb, ...) return self:_assertTableEqOrNeq(ta, tb, true, ...) end

function Tester:assertErrorObj(f, errcomp, ...)
   local message = message_of(...)
   local ok, err = pcall(f)
   return self:_assert_sub(not ok and errcomp(err) and true or false,
      message .. 'ERROR violation: err=' .. tostring(err))
end

function Tester:assertError(f, ...)
   return self:assertErrorObj(f, function() return true end, ...)
end

function Tester:assertErrorMsg(f, errmsg, ...)
   return self:assertErrorObj(f, function(err) return err == errmsg end, ...)
end

function Tester:assertErrorPattern(f, pattern, ...)
   return self:assertErrorObj(f, function(err)
      return type(err) == 'string' and err:find(pattern) ~= nil
   end, ...)
end

function Tester:assertNoError(f, ...)
   local message = message_of(...)
   local ok, err = pcall(f)
   return self:_assert_sub(ok, message .. 'ERROR violation: err=' .. tostring(err))
end

---------------------------------------------------------------------------------------------------
-- Registering tests.

-- add(f [, name]) for one test (an unnamed one is called 'unknown'), add(suite or table) for
-- every function in it; the names _setUp and _tearDown are the per-test hooks, at most one each.
function Tester:add(f, name)
   if type(f) == 'table' then
      if name ~= nil then
         error('Name parameter is forbidden for a table of tests, since its use is ambiguous', 2)
      end
      local tests = rawget(f, '__isTestSuite') and rawget(f, '__tests')
      if not tests then
         self:_warning('Tester:add: use TestSuite rather than plain lua table, so that a second '
            .. 'test of the same name is an error instead of replacing the first.')
         tests = f
      end
      for key, test in pairs(tests) do
         if type(test) == 'table' then error('Nested sets of tests are not supported', 2) end
         self:add(test, key)
      end
      return self
   end
   if type(f) ~= 'function' then
      error('Only tables of functions and functions supported', 2)
   end
   if name == '_setUp' then
      if self._setUp then error('Only one set-up function allowed', 2) end
      self._setUp = f
   elseif name == '_tearDown' then
      if self._tearDown then error('Only one tear-down function allowed', 2) end
      self._tearDown = f
   else
      name = name or 'unknown'
      if self.tests[name] ~= nil then
         error('Test with name ' .. tostring(name) .. ' already exists!', 2)
      end
      self.tests[name] = f
   end
   return self
end

-- disable('name') or disable({'a', 'b'}): those tests are reported as skipped.
function Tester:disable(names)
   if type(names) == 'string' then names = { names } end
   if type(names) ~= 'table' then error('Expecting name or list for disable', 2) end
   for _, name in ipairs(names) do
      if self.tests[name] == nil then error("Unrecognized test '" .. tostring(name) .. "'", 2) end
      self.disabledTests[name] = true
   end
   return self
end

---------------------------------------------------------------------------------------------------
-- Running.

-- The tests to run, name -> function: all, or those whose names match one of `names` (Lua
-- patterns, each of which must match at least one test).
function Tester:_getTests(names)
   if names == nil then return self.tests end
   if type(names) == 'string' then names = { names } end
   if type(names) ~= 'table' then
      error('Only accept a name or table of test names (or nil for all tests)', 3)
   end
   local tests = {}
   for _, pattern in ipairs(names) do
      local found = false
      for name, f in pairs(self.tests) do
         if tostring(name):match(pattern) then
            tests[name] = f
            found = true
         end
      end
      if not found then error("Couldn't find test '" .. tostring(pattern) .. "'", 3) end
   end
   return tests
end

local function sorted_names(tests)
   local names = {}
   for name in pairs(tests) do names[#names + 1] = name end
   table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
   return names
end

local function plural(n, word)
   return n .. ' ' .. word .. (n == 1 and '' or 's')
end

local function trace_to_test(e)
   -- The test's frames only: cut where the Tester called it.
   local tb = debug.traceback(tostring(e), 2)
   local cut = tb:find(THIS_FRAME)
   if cut then tb = tb:sub(1, cut - 1) end
   -- Nor the xpcall that called it.
   return (tb:gsub("\n%s*%[C%]: in function 'xpcall'$", ''))
end

-- Runs the hooks and the test; returns false and the error text if one of them raised.
function Tester:_runOne(name, fn)
   if self.rethrow then
      if self._setUp then self._setUp(name) end
      fn()
      if self._tearDown then self._tearDown(name) end
      return true
   end
   local ok, err = true, nil
   if self._setUp then ok, err = xpcall(function() self._setUp(name) end, trace_to_test) end
   if ok then ok, err = xpcall(fn, trace_to_test) end
   if self._tearDown then
      local tok, terr = xpcall(function() self._tearDown(name) end, trace_to_test)
      if ok and not tok then ok, err = tok, terr end
   end
   if not ok then
      self.errors[#self.errors + 1] = tostring(name) .. '\n Function call failed\n' .. tostring(err) .. '\n'
   end
   return ok
end

function Tester:_run(tests)
   local names = sorted_names(tests)
   local n = #names
   local width = #tostring(n)
   out('Running ' .. plural(n, 'test') .. '\n')
   for i, name in ipairs(names) do
      self._currentTestName = name
      local count = string.format('%' .. width .. 'd/%d ', i, n)
      local head = count .. tostring(name) .. ' '
      head = paint(count, 'cyan') .. head:sub(#count + 1) .. string.rep('.', math.max(0, NCOLS - 7 - #head)) .. ' '
      -- '[WAIT]' while the test runs, written over with its result.
      out(head .. '[' .. paint('WAIT', 'cyan') .. ']')
      io.flush()
      local status
      if self.disabledTests[name] then
         status = 'SKIP'
      else
         local failed = self.assertionFail[name]
         if not self:_runOne(name, tests[name]) then
            self.testError[name] = 1
            status = 'ERROR'
         elseif self.assertionFail[name] > failed then
            status = 'FAIL'
         else
            status = 'PASS'
         end
      end
      local line = '\r' .. head .. '[' .. paint(status, STATUS_COLOUR[status]) .. ']'
      if status == 'PASS' and self._warningCount[name] > 0 then
         line = line .. '\n' .. string.rep(' ', NCOLS - 10) .. '[' .. paint('+warning', 'yellow') .. ']'
      end
      out(line .. '\n')
      if self.earlyAbort and i < n and (status == 'ERROR' or status == 'FAIL') then
         out('Aborting on first error, not all tests have been executed\n')
         break
      end
      collectgarbage()
   end
   self._currentTestName = ''
end

function Tester:_report(tests)
   local ntests, nfailures, nerrors, nwarnings, nskipped = 0, 0, 0, 0, 0
   self.countasserts = 0
   for name in pairs(tests) do
      ntests = ntests + 1
      self.countasserts = self.countasserts + self.assertionPass[name] + self.assertionFail[name]
      if self.assertionFail[name] > 0 then nfailures = nfailures + 1 end
      if self.testError[name] > 0 then nerrors = nerrors + 1 end
      if self._warningCount[name] > 0 then nwarnings = nwarnings + 1 end
      if self.disabledTests[name] then nskipped = nskipped + 1 end
   end
   -- Warnings given outside any test (by add, say) count one each.
   nwarnings = nwarnings + (self._warningCount[''] or 0)
   local summary = 'Completed ' .. plural(self.countasserts, 'assert') .. ' in ' .. plural(ntests, 'test') ..
      ' with ' .. paint(plural(nfailures, 'failure'), nfailures == 0 and 'green' or 'red') ..
      ' and ' .. paint(plural(nerrors, 'error'), nerrors == 0 and 'green' or 'magenta')
   if nwarnings > 0 then summary = summary .. ' and ' .. paint(plural(nwarnings, 'warning'), 'yellow') end
   if nskipped > 0 then summary = summary .. ' and ' .. paint(nskipped .. ' disabled', 'yellow') end
   out(summary .. '\n')
   if not self.summaryOnly then
      local line = string.rep('-', NCOLS) .. '\n'
      local sections = {}
      for _, e in ipairs(self.errors) do sections[#sections + 1] = e end
      for _, w in ipairs(self.warnings) do sections[#sections + 1] = w end
      if #sections > 0 then out(line) end
      for _, s in ipairs(sections) do out(s .. '\n' .. line) end
   end
   -- What has been reported is not reported again by a later run.
   self.errors, self.warnings = {}, {}
   self._warningCount[''] = nil
end

-- run() or run('name' / {'pattern', ...}): runs the tests, reports, and raises an error if a test
-- failed or raised one. Returns 0 otherwise.
function Tester:run(names)
   local tests = self:_getTests(names)
   self.assertionPass, self.assertionFail, self.testError = {}, {}, {}
   for name in pairs(tests) do
      self.assertionPass[name] = 0
      self.assertionFail[name] = 0
      self.testError[name] = 0
      self._warningCount[name] = 0
   end
   choose_colours()
   self:_run(tests)
   self:_report(tests)
   for name in pairs(tests) do
      if self.assertionFail[name] > 0 or self.testError[name] > 0 then
         error('An error was found while running tests!', 0)
      end
   end
   return 0
end

return Tester
