-- torch.Tester beyond a plain run: unnamed tests and lists of tests, the _success/_failure hooks
-- and what assertions return, the warnings, argument checks, rethrow, early abort, summary only,
-- at most one _setUp/_tearDown, test selection, and the report written through io.write.

local function check(cond, what)
   if not cond then error('check failed: ' .. what, 2) end
end

-- Runs f with io.write captured; returns f's pcall results and everything written.
local function captured(f, ...)
   local saved, parts = io.write, {}
   io.write = function(s) parts[#parts + 1] = s end
   local res = { pcall(f, ...) }
   io.write = saved
   return table.concat(parts), unpack(res)
end

local function contains(text, s) return text:find(s, 1, true) ~= nil end

-- Assertions return what the hooks return: true, or false; overridden hooks' values pass through.
local quiet = torch.Tester()
local ok, msg = quiet:asserteq(1, 1)
check(ok == true and msg == nil, 'a passing assert returns true')
quiet._success = function() return true, 'yes' end
quiet._failure = function(_, message) return false, message end
ok, msg = quiet:asserteq(1, 1, 'm')
check(ok == true and msg == 'yes', 'the _success hook value')
ok, msg = quiet:asserteq(1, 2, 'my message')
check(ok == false and msg == 'my message\nEQ failed: 1 ~= 2', 'asserteq failure text: ' .. msg)
local texts = {
   { 'm\nBOOL violation condition=false', quiet:assert(false, 'm') },
   { 'LT failed: 2 >= 1', quiet:assertlt(2, 1) },
   { 'GT failed: 1 <= 2', quiet:assertgt(1, 2) },
   { 'LE failed: 2 > 1', quiet:assertle(2, 1) },
   { 'GE failed: 1 < 2', quiet:assertge(1, 2) },
   { 'NE failed: 1 == 1', quiet:assertne(1, 1) },
   { 'ALMOST_EQ failed: 1 ~= 2 with tolerance=0.5', quiet:assertalmosteq(1, 2, 0.5) },
   { 'EQ failed: 1 ~= 2', quiet:eq(1, 2) },
   { 'EQ failed: 1 ~= 2.5 with tolerance=1', quiet:eq(1, 2.5, 1) },
   { 'NE failed: 3 == 3', quiet:ne(3, 3) },
   { 'EQ failed: values have different types (first: string, second: number)', quiet:eq('a', 1) },
   { 'EQ failed: a (string) ~= b (string)', quiet:eq('a', 'b') },
   { 'At table location 2.1: EQ failed: 2 ~= 3', quiet:eq({ 1, { 2 } }, { 1, { 3 } }) },
   { 'Entry a missing in second table (is 1 in first)', quiet:eq({ a = 1 }, {}) },
   { 'Entry b missing in first table (is 2 in second)', quiet:eq({}, { b = 2 }) },
   { 'TensorEQ(==) violation: max diff=2, tolerance=0', quiet:eq(torch.Tensor{ 1, 2 }, torch.Tensor{ 1, 4 }) },
   { 'TensorNE(==) violation: max diff=0, tolerance=0', quiet:ne(torch.Tensor{ 1 }, torch.Tensor{ 1 }) },
   { 'The tensors have different dimensions', quiet:eq(torch.Tensor{ 1 }, torch.Tensor{ { 1 } }) },
   { 'The tensors have different types', quiet:eq(torch.Tensor{ 1 }, torch.FloatTensor{ 1 }) },
   { 'The tensors have different sizes', quiet:eq(torch.Tensor{ 1 }, torch.Tensor{ 1, 2 }) },
   { 'StorageEQ(==) violation: max diff=2, tolerance=0', quiet:eq(torch.IntStorage{ 1 }, torch.IntStorage{ 3 }) },
   { 'The storages have different sizes', quiet:eq(torch.IntStorage{ 1 }, torch.IntStorage{ 1, 2 }) },
   { 'The storages have different types', quiet:eq(torch.IntStorage{ 1 }, torch.LongStorage{ 1 }) },
   { 'ERROR violation: err=nil', quiet:assertError(function() end) },
   { 'ERROR violation: err=boom', quiet:assertNoError(function() error('boom', 0) end) },
}
for i, t in ipairs(texts) do
   check(t[2] == false and t[3] == t[1], 'failure text ' .. i .. ': ' .. tostring(t[3]))
end
-- Passing comparisons of each kind.
check(quiet:eq(torch.ByteTensor{ 0 }, torch.ByteTensor{ 255 }, 255), 'byte differences do not wrap')
check(not quiet:eq(torch.ByteTensor{ 0 }, torch.ByteTensor{ 255 }, 254), 'byte difference 255')
check(quiet:eq(torch.Tensor(), torch.Tensor()), 'empty tensors')
check(quiet:eq({ torch.Tensor{ 1 } }, { torch.Tensor{ 1 + 1e-10 } }, 1e-9), 'tolerance reaches into tables')
check(quiet:ne({ torch.Tensor{ 1 } }, { torch.Tensor{ 1 + 1e-10 } }), 'no tolerance by default')
check(quiet:ne(1, 'a'), 'different types are not equal')
check(quiet:assertalmosteq(1, 1 + 1e-17), 'default tolerance 1e-16')
check(quiet:assertTableEq({ 1, 'a' }, { 1, 'a' }, 'm', 0.1), 'message and tolerance in either order')
check(quiet:assertErrorMsg(function() error('exact', 0) end, 'exact'), 'assertErrorMsg')
check(quiet:assertErrorPattern(function() error({}) end, 'x') == false, 'a table error matches no pattern')

-- assertTensorEq compares the elements only (with a warning) unless told to compare dimensions.
check(quiet:assertTensorEq(torch.Tensor{ { 1, 2 } }, torch.Tensor{ 1, 2 }), 'elements only')
check(#quiet.warnings == 1 and contains(quiet.warnings[1], 'but different dimensions'), 'dims warning')
quiet._assertTensorEqIgnoresDims = false
check(not quiet:assertTensorEq(torch.Tensor{ { 1, 2 } }, torch.Tensor{ 1, 2 }), 'dimensions checked')

-- Argument checks.
local function fails_with(f, text)
   local good, err = pcall(f)
   check(not good and contains(tostring(err), text), text .. ': ' .. tostring(err))
end
fails_with(function() quiet:assert(true, 'm', 'extra') end, 'Unexpected arguments passed to test function')
fails_with(function() quiet:asserteq(1, 1, 5) end, 'message parameter must be a string')
fails_with(function() quiet:assertTensorEq(1, torch.Tensor{ 1 }) end, 'First argument should be a Tensor')
fails_with(function() quiet:assertTensorNe(torch.Tensor{ 1 }, 2) end, 'Second argument should be a Tensor')
fails_with(function() quiet:assertTableEq(1, {}) end, 'First argument should be a Table')
fails_with(function() quiet:assertTableNe({}, 'x') end, 'Second argument should be a Table')
fails_with(function() quiet:eq(1, 1, 'a', 'b') end, 'Unexpected string argument; already have message')
fails_with(function() quiet:eq(1, 1, 1, 2) end, 'Unexpected number argument; already have tolerance')
fails_with(function() quiet:eq(1, 1, -1) end, 'tolerance cannot be negative')
fails_with(function() quiet:eq(1, 1, {}) end, 'Unrecognized argument; should be a tolerance or message')
-- The error points at the caller's line, not into the Tester.
local _, where = pcall(function() quiet:assert(true, 'm', 'extra') end)
check(where:find('^torch_util_tester_api%.lua:%d+:'), 'error position: ' .. where)

-- add: an unnamed test is 'unknown'; a list of functions is named by its indices (with a warning
-- for not being a TestSuite); names, nesting, non-functions and hooks are checked.
local t = torch.Tester()
local ran = {}
t:add(function() ran.unknown = true; t:assert(true) end)
fails_with(function() t:add(function() end) end, 'Test with name unknown already exists!')
t:add({ function() ran[1] = true end, function() ran[2] = true end })
fails_with(function() t:add({ function() end }, 'name') end, 'Name parameter is forbidden for a table of tests')
fails_with(function() t:add({ { function() end } }) end, 'Nested sets of tests are not supported')
fails_with(function() t:add(42) end, 'Only tables of functions and functions supported')
local suite = torch.TestSuite()
fails_with(function() suite.nested = {} end, 'Nested tables of tests are not supported')
fails_with(function() suite.number = 1 end, 'Only functions are supported as members of a TestSuite')
local calls = {}
suite._setUp = function(name) calls[#calls + 1] = 'setUp ' .. tostring(name) end
suite._tearDown = function(name) calls[#calls + 1] = 'tearDown ' .. tostring(name) end
suite.named = function() calls[#calls + 1] = 'named' end
t:add(suite)
check(t.tests._setUp == nil and t.tests._tearDown == nil, 'hooks are not tests')
fails_with(function() t:add(function() end, '_setUp') end, 'Only one set-up function allowed')
fails_with(function() t:add(function() end, '_tearDown') end, 'Only one tear-down function allowed')
local text, good, ret = captured(t.run, t)
check(good and ret == 0, 'run returns 0: ' .. tostring(ret))
check(ran.unknown and ran[1] and ran[2], 'unnamed and listed tests ran')
check(contains(text, 'Running 4 tests\n1/4 1 ..'), text)
check(contains(text, '4/4 unknown ..'), text)
check(contains(text, 'Completed 1 assert in 4 tests with 0 failures and 0 errors and 2 warnings\n'), text)
check(contains(text, 'use TestSuite rather than plain lua table'), 'the plain table warning is reported')
check(#calls == 9 and calls[1] == 'setUp 1' and calls[2] == 'tearDown 1', 'hooks around every test')
check(calls[5] == 'setUp named' and calls[6] == 'named' and calls[7] == 'tearDown named', 'hooks get the name')
-- What was reported is not reported again.
text = captured(t.run, t, 'named')
check(contains(text, 'Completed 0 asserts in 1 test with 0 failures and 0 errors\n'), text)
check(not contains(text, 'TestSuite'), text)

-- Warnings: assert on a non-boolean, assertne on objects; a passing test with one is marked.
local w = torch.Tester()
w:add(function() w:assert(1) end, 'assertNumber')
w:add(function() w:assertne({}, {}) end, 'assertneTables')
text = captured(w.run, w)
check(contains(text, 'should only be used for boolean conditions'), text)
check(contains(text, 'assertne should only be used to compare basic lua values'), text)
check(contains(text, '[PASS]\n' .. string.rep(' ', 70) .. '[+warning]\n'), text)
check(contains(text, 'and 2 warnings\n'), text)
check(contains(text, 'assertNumber\n :assert should only'), 'a warning names its test: ' .. text)

-- Failures and errors: the report, the error raised by run, and the counts.
local f = torch.Tester()
f:add(function() f:asserteq(1, 2, 'one is not two') end, 'failing')
f:add(function() f:assert(true); error('boom') end, 'raising')
f:add(function() f:assert(true, 'm', 'extra') end, 'extraArgs')
text, good, ret = captured(f.run, f)
check(not good and ret == 'An error was found while running tests!', tostring(ret))
check(f.countasserts == 2, 'countasserts ' .. f.countasserts)
check(contains(text, 'failing\none is not two\nEQ failed: 1 ~= 2\nstack traceback:\n'), text)
check(contains(text, 'raising\n Function call failed\n'), text)
check(contains(text, 'boom'), text)
check(contains(text, 'Unexpected arguments passed to test function'), text)
check(contains(text, 'Completed 2 asserts in 3 tests with 1 failure and 2 errors\n'), text)
-- summaryOnly: the summary and no sections.
f:setSummaryOnly(true)
text = captured(f.run, f, 'failing')
check(contains(text, 'with 1 failure and 0 errors\n') and not contains(text, '-----'), text)

-- rethrow: the test's error and a failed assertion leave run at once.
local r = torch.Tester()
r:setRethrowErrors(true)
r:add(function() error('a throw') end, 'throws')
text, good, ret = captured(r.run, r)
check(not good and contains(ret, 'a throw'), tostring(ret))
local r2 = torch.Tester()
r2:setRethrowErrors(true)
r2:add(function() r2:asserteq(1, 2, 'rethrown failure') end, 'fails')
text, good, ret = captured(r2.run, r2)
check(not good and contains(ret, 'rethrown failure\nEQ failed: 1 ~= 2'), tostring(ret))
check(ret:find('^torch_util_tester_api%.lua:%d+:'), 'a rethrown failure points at the assert: ' .. ret)

-- earlyAbort: the first failing test ends the run (that test still runs to its end).
for _, abort in ipairs({ false, true }) do
   local e = torch.Tester()
   local n, after = 0, 0
   local tests = torch.TestSuite()
   function tests.a() n = n + 1; e:assert(false); after = after + 1 end
   function tests.b() n = n + 1; e:assert(false) end
   e:setEarlyAbort(abort)
   e:add(tests)
   text = captured(e.run, e)
   check(n == (abort and 1 or 2) and after == 1, 'earlyAbort ' .. tostring(abort))
   check(contains(text, 'Aborting on first error') == abort, text)
end

-- Selection: patterns, disable, and names that match nothing.
local s = torch.Tester()
local hit = {}
s:add(function() hit.alpha = true end, 'alpha')
s:add(function() hit.beta = true end, 'beta')
s:add(function() hit.gamma = true end, 'gamma')
fails_with(function() s:disable('delta') end, "Unrecognized test 'delta'")
fails_with(function() s:run('delta') end, "Couldn't find test 'delta'")
check(s:disable('gamma') == s, 'disable returns the tester')
text = captured(s.run, s, { '^al', 'gam' })
check(hit.alpha and not hit.beta and not hit.gamma, 'selected tests')
check(contains(text, '2/2 gamma ') and contains(text, '[SKIP]') and contains(text, 'and 1 disabled\n'), text)

-- The index column is as wide as the count.
local wide = torch.Tester()
for i = 1, 10 do wide:add(function() end, string.format('t%02d', i)) end
text = captured(wide.run, wide)
check(contains(text, '\n 1/10 t01 ...') and contains(text, '\n10/10 t10 ...'), text)
-- Each test's line is written twice, '[WAIT]' and then over it after '\r' the result: 80 columns each.
local waiting, done = text:match('\n( 1/10 t01 [^\n\r]*)\r( 1/10 t01 [^\n]*)\n')
check(waiting and #waiting == 80 and waiting:sub(-6) == '[WAIT]', 'a [WAIT] line of 80 columns: ' .. text)
check(#done == 80 and done:sub(-6) == '[PASS]', 'a result line of 80 columns: ' .. text)

print('ok')
