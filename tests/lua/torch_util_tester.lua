-- torch.Tester and torch.TestSuite: a run with passing, failing, erroring and disabled tests.
local tests = torch.TestSuite()
local tester = torch.Tester()

function tests.arithmetic()
   tester:eq(1 + 1, 2, 'one and one')
   tester:assertlt(1, 2, 'lt')
   tester:assertge(2, 2, 'ge')
   tester:asserteq('a', 'a', 'eq')
   tester:assertne(1, 2, 'ne')
   tester:assertalmosteq(1, 1 + 1e-12, 1e-9, 'almost')
end

function tests.tensors()
   tester:assertTensorEq(torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2.0001 }), 1e-3, 'close tensors')
   tester:eq({ 1, { torch.Tensor({ 3 }) } }, { 1, { torch.Tensor({ 3 }) } }, 'nested tables of tensors')
   tester:eq(torch.FloatTensor({ 1 }), torch.FloatTensor({ 1.5 }), 0.6, 'tolerance')
   tester:ne(torch.Tensor({ 1 }), torch.Tensor({ 2 }), 'different tensors')
   tester:assertTensorNe(torch.Tensor({ 1 }), torch.Tensor({ 2 }), 'assertTensorNe')
   tester:assertTableEq({ a = 1 }, { a = 1 }, 'tables')
end

function tests.errors()
   tester:assertError(function() error('x') end, 'raises')
   tester:assertErrorMsg(function() error('exact', 0) end, 'exact', 'message')
   tester:assertErrorPattern(function() error('some text') end, 'me te', 'pattern')
   tester:assertNoError(function() end, 'no error')
end

function tests.failing()
   tester:assert(false, 'deliberate failure')
   tester:eq(torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 1, 2, 4 }), 'a and b should be equal')
end

function tests.raising()
   error('deliberate error')
end

function tests.skipped()
   error('never runs')
end

local ok, dup = pcall(function() function tests.arithmetic() end end)
assert(not ok and dup:find('Test arithmetic is already defined.', 1, true), tostring(dup))

assert(tester:add(tests) == tester, 'add returns the tester')
tester:disable('skipped')
local ran, err = pcall(tester.run, tester)
assert(not ran, 'run raises when a test failed')
print('run error: ' .. tostring(err))

-- A clean run returns 0; a subset can be selected by name.
local t2 = torch.Tester()
t2:add(function() t2:assert(true) end, 'only')
t2:add(function() t2:assert(false) end, 'other')
assert(t2:run('only') == 0)
