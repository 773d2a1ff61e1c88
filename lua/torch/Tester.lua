-- torch.Tester and torch.TestSuite: the unit-test harness Torch packages use.
--
--   local tests = torch.TestSuite()
--   local tester = torch.Tester()
--   function tests.addition() tester:eq(1 + 1, 2, 'one and one') end
--   tester:add(tests):run()
--
-- run() prints one line per test ('1/3 name ....... [PASS]', 80 columns), a summary, then the
-- failures with their messages and where they happened; it raises an error if any test failed.

local torch = require 'torch'

---------------------------------------------------------------------------------------------------
-- TestSuite: a table of tests that refuses a second test of the same name (a common copy-paste
-- mistake that would silently drop the first test). The tests live in a hidden table so that
-- every assignment goes through __newindex.

local TestSuite = torch.class('torch.TestSuite')
local SUITE_TESTS = '__tests'

function TestSuite:__init()
   rawset(self, SUITE_TESTS, {})
   rawset(self, '__order', {})
end

TestSuite.__newindex = function(self, name, f)
   local tests = rawget(self, SUITE_TESTS)
   if tests[name] ~= nil then
      error('Test ' .. tostring(name) .. ' is already defined.', 2)
   end
   tests[name] = f
   local order = rawget(self, '__order')
   order[#order + 1] = name
end

TestSuite.__index = function(self, name)
   local tests = rawget(self, SUITE_TESTS)
   if tests and tests[name] ~= nil then return tests[name] end
   return TestSuite[name]
end

local function suite_tests(suite)
   return rawget(suite, SUITE_TESTS)
end

---------------------------------------------------------------------------------------------------

local Tester = torch.class('torch.Tester')

local LINE = string.rep('-', 80)

function Tester:__init()
   self.tests = {}
   self.testNames = {}
   self.disabled = {}
   self.earlyAbort = false
   self.rethrowErrors = false
   self.summaryOnly = false
   self.countasserts = 0
   self._setUp = nil
   self._tearDown = nil
end

function Tester:setEarlyAbort(b) self.earlyAbort = b and true or false; return self end
function Tester:setRethrowErrors(b) self.rethrowErrors = b and true or false; return self end
function Tester:setSummaryOnly(b) self.summaryOnly = b and true or false; return self end

local function add_one(self, f, name)
   if type(name) ~= 'string' then
      error('Tester.add: a test function needs a name (a string), got ' .. type(name), 3)
   end
   if type(f) ~= 'function' then
      error('Tester.add: test ' .. name .. ' is a ' .. type(f) .. ', expected a function', 3)
   end
   if name == '_setUp' then
      self._setUp = f
   elseif name == '_tearDown' then
      self._tearDown = f
   else
      if self.tests[name] ~= nil then
         error('Tester.add: test ' .. name .. ' is already defined', 3)
      end
      self.tests[name] = f
      self.testNames[#self.testNames + 1] = name
   end
end

-- add(f, name) for one test, add(table or TestSuite) for all the functions in it.
function Tester:add(f, name)
   if torch.typename(f) == 'torch.TestSuite' then
      local tests = suite_tests(f)
      local names = {}
      for k in pairs(tests) do names[#names + 1] = k end
      table.sort(names)
      for _, k in ipairs(names) do add_one(self, tests[k], k) end
   elseif type(f) == 'table' then
      local names = {}
      for k in pairs(f) do names[#names + 1] = k end
      table.sort(names, function(a, b) return tostring(a) < tostring(b) end)
      for _, k in ipairs(names) do add_one(self, f[k], tostring(k)) end
   elseif type(f) == 'function' then
      add_one(self, f, name)
   else
      error('Tester.add: expected a function, a table of functions or a torch.TestSuite, got ' .. type(f), 2)
   end
   return self
end

-- disable('name') or disable({'a', 'b'}): those tests are reported as skipped.
function Tester:disable(names)
   if type(names) == 'string' then names = { names } end
   if type(names) ~= 'table' then
      error('Tester.disable: expected a test name or a list of names, got ' .. type(names), 2)
   end
   for _, name in ipairs(names) do
      if self.tests[name] == nil then
         error('Tester.disable: no test named ' .. tostring(name), 2)
      end
      self.disabled[name] = true
   end
   return self
end

---------------------------------------------------------------------------------------------------
-- Assertions. Each counts one assert; a failure records the message and where it happened, and
-- the test goes on (Torch's behaviour). Each returns whether it passed.

local function where()
   -- Skip the Tester's own frames, then keep the test's (up to two: the assert may be in a
   -- helper), stopping where the Tester called the test.
   local tb = debug.traceback('', 2)
   local frames = {}
   local in_test = false
   for line in tb:gmatch('\n([^\n]+)') do
      local ours = line:find('torch/Tester.lua', 1, true) ~= nil
      if in_test and (ours or line:find('[C]', 1, true) or #frames >= 2) then break end
      if not ours and not line:find('stack traceback:', 1, true) then
         in_test = true
         frames[#frames + 1] = line
      end
   end
   return 'stack traceback:\n' .. table.concat(frames, '\n')
end

local function record(self, passed, message, violation)
   self.countasserts = self.countasserts + 1
   if not passed then
      local failures = self._currentFailures
      local entry = (message and message ~= '' and (tostring(message) .. '\n') or '') .. violation .. '\n' .. where()
      if failures then
         failures[#failures + 1] = entry
      else
         -- An assert outside run(): report it at once.
         io.stderr:write(entry, '\n')
      end
      if self.earlyAbort then
         error({ __testerEarlyAbort = true }, 0)
      end
   end
   return passed
end

-- (tolerance, message) or (message, tolerance), both optional.
local function tol_and_msg(a, b, default)
   if type(a) == 'string' or (a == nil and type(b) == 'number') then a, b = b, a end
   return a == nil and default or a, b
end

local function number_arg(method, v, what)
   if type(v) ~= 'number' then
      error('Tester.' .. method .. ': ' .. what .. ' must be a number, got ' .. type(v), 3)
   end
end

function Tester:assert(condition, message)
   return record(self, condition and true or false, message, 'BOOL violation: condition=' .. tostring(condition))
end

local comparisons = {
   assertlt = { 'LT(<)', function(a, b) return a < b end },
   assertgt = { 'GT(>)', function(a, b) return a > b end },
   assertle = { 'LE(<=)', function(a, b) return a <= b end },
   assertge = { 'GE(>=)', function(a, b) return a >= b end },
}
for method, spec in pairs(comparisons) do
   Tester[method] = function(self, a, b, message)
      number_arg(method, a, 'the first value')
      number_arg(method, b, 'the second value')
      return record(self, spec[2](a, b), message,
         spec[1] .. ' violation: a=' .. tostring(a) .. ', b=' .. tostring(b))
   end
end

function Tester:asserteq(a, b, message)
   return record(self, a == b, message, 'EQ(==) violation: a=' .. tostring(a) .. ', b=' .. tostring(b))
end

function Tester:assertne(a, b, message)
   return record(self, a ~= b, message, 'NE(~=) violation: a=' .. tostring(a) .. ', b=' .. tostring(b))
end

function Tester:assertalmosteq(a, b, t, m)
   local tolerance, message = tol_and_msg(t, m, 1e-16)
   number_arg('assertalmosteq', a, 'the first value')
   number_arg('assertalmosteq', b, 'the second value')
   local diff = math.abs(a - b)
   return record(self, diff <= tolerance, message,
      'ALMOST_EQ(==) violation: a=' .. tostring(a) .. ', b=' .. tostring(b) .. ', tolerance=' .. tostring(tolerance))
end

-- Largest absolute difference between two tensors or storages of the same type and size; nil
-- and a reason when they cannot be compared.
local function max_diff(a, b)
   local na, nb = torch.typename(a), torch.typename(b)
   if na ~= nb then return nil, 'type mismatch (' .. tostring(na) .. ' vs ' .. tostring(nb) .. ')' end
   if torch.isTensor(a) then
      if not a:isSameSizeAs(b) then return nil, 'size mismatch' end
      if a:nElement() == 0 then return 0 end
      a = torch.DoubleTensor(a:nElement()):copy(a)
      b = torch.DoubleTensor(b:nElement()):copy(b)
   elseif a:size() ~= b:size() then
      return nil, 'size mismatch'
   end
   local worst = 0
   local n = torch.isTensor(a) and a:nElement() or a:size()
   for i = 1, n do
      local x, y = a[i], b[i]
      local d
      if x == y then d = 0 else d = math.abs(x - y) end
      if d ~= d then return math.huge end
      if d > worst then worst = d end
   end
   return worst
end

function Tester:assertTensorEq(ta, tb, t, m)
   local tolerance, message = tol_and_msg(t, m, 1e-16)
   local diff, why = max_diff(ta, tb)
   if diff == nil then
      return record(self, false, message, 'TensorEQ(==) violation: ' .. why)
   end
   return record(self, diff <= tolerance, message,
      'TensorEQ(==) violation: max diff=' .. tostring(diff) .. ', tolerance=' .. tostring(tolerance))
end

function Tester:assertTensorNe(ta, tb, t, m)
   local tolerance, message = tol_and_msg(t, m, 1e-16)
   local diff = max_diff(ta, tb)
   return record(self, diff == nil or diff > tolerance, message,
      'TensorNE(~=) violation: max diff=' .. tostring(diff) .. ', tolerance=' .. tostring(tolerance))
end

-- Deep equality: tables recursively, tensors and storages elementwise, numbers within the
-- tolerance, anything else with ==. Returns true, or false and where they differ.
local function general_eq(a, b, tolerance, path)
   local na, nb = torch.typename(a), torch.typename(b)
   if (na and (torch.isTensor(a) or torch.isStorage(a))) or (nb and (torch.isTensor(b) or torch.isStorage(b))) then
      local diff, why = max_diff(a, b)
      if diff == nil then return false, path .. ': ' .. why end
      if diff > tolerance then return false, path .. ': max diff=' .. tostring(diff) end
      return true
   end
   if type(a) == 'number' and type(b) == 'number' then
      if a == b or math.abs(a - b) <= tolerance then return true end
      return false, path .. ': ' .. tostring(a) .. ' ~= ' .. tostring(b)
   end
   if type(a) == 'table' and type(b) == 'table' then
      if a == b then return true end
      for k, v in pairs(a) do
         local ok, why = general_eq(v, b[k], tolerance, path .. '.' .. tostring(k))
         if not ok then return false, why end
      end
      for k in pairs(b) do
         if a[k] == nil then return false, path .. '.' .. tostring(k) .. ': missing in the first value' end
      end
      return true
   end
   if a == b then return true end
   return false, path .. ': ' .. tostring(a) .. ' ~= ' .. tostring(b)
end

function Tester:assertGeneralEq(got, expected, t, m)
   local tolerance, message = tol_and_msg(t, m, 0)
   local ok, why = general_eq(got, expected, tolerance, 'value')
   return record(self, ok, message, 'GeneralEQ(==) violation: ' .. tostring(why))
end
Tester.eq = Tester.assertGeneralEq

function Tester:assertGeneralNe(got, unexpected, t, m)
   local tolerance, message = tol_and_msg(t, m, 0)
   local ok = general_eq(got, unexpected, tolerance, 'value')
   return record(self, not ok, message, 'GeneralNE(~=) violation: the values are equal')
end
Tester.ne = Tester.assertGeneralNe

function Tester:assertTableEq(ta, tb, t, m)
   local tolerance, message = tol_and_msg(t, m, 1e-16)
   local ok, why = general_eq(ta, tb, tolerance, 'table')
   return record(self, ok, message, 'TableEQ(==) violation: ' .. tostring(why))
end

function Tester:assertTableNe(ta, tb, t, m)
   local tolerance, message = tol_and_msg(t, m, 1e-16)
   local ok = general_eq(ta, tb, tolerance, 'table')
   return record(self, not ok, message, 'TableNE(~=) violation: the tables are equal')
end

function Tester:assertErrorObj(f, errcomp, message)
   local ok, err = pcall(f)
   return record(self, not ok and errcomp(err) and true or false, message,
      'ERROR violation: ' .. (ok and 'no error was raised' or ('err=' .. tostring(err))))
end

function Tester:assertError(f, message)
   return self:assertErrorObj(f, function() return true end, message)
end

function Tester:assertErrorMsg(f, errmsg, message)
   return self:assertErrorObj(f, function(err) return err == errmsg end, message)
end

function Tester:assertErrorPattern(f, pattern, message)
   return self:assertErrorObj(f, function(err) return type(err) == 'string' and err:find(pattern) ~= nil end, message)
end

function Tester:assertNoError(f, message)
   local ok, err = pcall(f)
   return record(self, ok, message, 'ERROR violation: err=' .. tostring(err))
end

---------------------------------------------------------------------------------------------------

local function plural(n, word)
   return n .. ' ' .. word .. (n == 1 and '' or 's')
end

local function status_line(i, n, name, status)
   local head = i .. '/' .. n .. ' ' .. name .. ' '
   return head .. string.rep('.', math.max(0, 73 - #head)) .. ' [' .. status .. ']'
end

-- The tests to run: all, or those whose names match one of `names` (string.match patterns).
local function selected(self, names)
   if names == nil then return self.testNames end
   if type(names) == 'string' then names = { names } end
   if type(names) ~= 'table' then
      error('Tester.run: expected a test name or a list of names, got ' .. type(names), 3)
   end
   local out = {}
   for _, test in ipairs(self.testNames) do
      for _, pattern in ipairs(names) do
         if test:match(pattern) then
            out[#out + 1] = test
            break
         end
      end
   end
   return out
end

function Tester:run(names)
   local run = selected(self, names)
   table.sort(run)
   self.countasserts = 0
   local reports = {}
   local nfail, nerr, ndisabled = 0, 0, 0
   print('Running ' .. plural(#run, 'test'))
   for i, name in ipairs(run) do
      if self.disabled[name] then
         ndisabled = ndisabled + 1
         print(status_line(i, #run, name, 'SKIP'))
      else
         self._currentFailures = {}
         local errored
         local function body()
            if self._setUp then self._setUp(name) end
            self.tests[name]()
            if self._tearDown then self._tearDown(name) end
         end
         local ok, err
         if self.rethrowErrors then
            ok = true
            body()
         else
            ok, err = xpcall(body, function(e)
               if type(e) == 'table' and e.__testerEarlyAbort then return e end
               -- The test's frames only: cut where the Tester called it.
               local tb = debug.traceback(tostring(e), 2)
               local cut = tb:find('\n[^\n]*torch/Tester%.lua')
               return cut and tb:sub(1, cut - 1) or tb
            end)
         end
         local aborted = not ok and type(err) == 'table' and err.__testerEarlyAbort
         if not ok and not aborted then
            errored = 'Function call failed\n' .. tostring(err)
         end
         local failures = self._currentFailures
         self._currentFailures = nil
         local status = errored and 'ERROR' or (#failures > 0 and 'FAIL' or 'PASS')
         print(status_line(i, #run, name, status))
         if #failures > 0 then nfail = nfail + 1 end
         if errored then nerr = nerr + 1 end
         for _, f in ipairs(failures) do reports[#reports + 1] = name .. '\n' .. f end
         if errored then reports[#reports + 1] = name .. '\n' .. errored end
         if self.earlyAbort and (errored or #failures > 0) then break end
      end
   end
   local summary = 'Completed ' .. plural(self.countasserts, 'assert') .. ' in ' .. plural(#run, 'test') ..
      ' with ' .. plural(nfail, 'failure') .. ' and ' .. plural(nerr, 'error')
   if ndisabled > 0 then summary = summary .. ' and ' .. ndisabled .. ' disabled' end
   print(summary)
   if #reports > 0 and not self.summaryOnly then
      print(LINE)
      for _, r in ipairs(reports) do
         print(r)
         print('')
         print(LINE)
      end
   end
   if nfail > 0 or nerr > 0 then
      error('An error was found while running tests!', 2)
   end
   return self
end

return Tester
