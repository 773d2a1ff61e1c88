-- totem's predicates and its Tester extras (runs under Torch7's th as well).
require 'totem'

local function fails(pattern, f, ...)
   local ok, err = pcall(f, ...)
   assert(not ok, 'expected an error matching ' .. pattern)
   assert(tostring(err):find(pattern), 'unexpected error: ' .. tostring(err))
end

-- tensors
local a = torch.Tensor{ 1, 2, 3 }
local b = torch.Tensor{ 1, 2, 3.5 }
assert(totem.areTensorsEq(a, a:clone()))
local ok, msg = totem.areTensorsEq(a, b)
assert(not ok and msg == 'TensorEQ(==) violation: max diff=0.5, tolerance=0', msg)
assert(totem.areTensorsEq(a, b, 0.5))
ok, msg = totem.areTensorsNe(a, a:clone())
assert(not ok and msg == 'TensorNE(==) violation: max diff=0, tolerance=0', msg)
assert(totem.areTensorsNe(a, b))
ok, msg = totem.areTensorsEq(a, a:float())
assert(not ok and msg == 'The tensors have different types')
ok, msg = totem.areTensorsEq(a, a:view(1, 3))
assert(not ok and msg == 'The tensors have different dimensions')
assert(not totem.areTensorsEq(a, torch.Tensor(4):fill(1)))
assert(totem.areTensorsNe(a, torch.Tensor(4):fill(1)))
assert(totem.areTensorsEq(torch.Tensor(), torch.Tensor()))
-- small integer types are compared without wrapping around
assert(not totem.areTensorsEq(torch.ByteTensor{ 1 }, torch.ByteTensor{ 3 }, 1))
assert(totem.areTensorsEq(torch.ByteTensor{ 1 }, torch.ByteTensor{ 3 }, 2))
fails('First argument should be a Tensor', totem.areTensorsEq, nil, a)
fails('Second argument should be a Tensor', totem.areTensorsNe, a, 3)
fails('Third argument should be a number', totem.areTensorsEq, a, a, 'x')
fails('TensorEQ%(==%) violation', totem.assertTensorEq, a, b)
fails('TensorNE%(==%) violation', totem.assertTensorNe, a, a)
assert(totem.assertTensorEq(a, b, 1) and totem.assertTensorNe(a, b))

-- storages
local s1, s2 = torch.IntStorage{ 1, 2 }, torch.IntStorage{ 1, 4 }
assert(totem.areStoragesEq(s1, torch.IntStorage{ 1, 2 }))
ok, msg = totem.areStoragesEq(s1, s2)
assert(not ok and msg == 'StorageEQ(==) violation: max diff=2, tolerance=0', msg)
ok, msg = totem.areStoragesEq(s1, torch.IntStorage{ 1 })
assert(not ok and msg == 'The storages have different sizes')
ok, msg = totem.areStoragesEq(s1, torch.LongStorage{ 1, 2 })
assert(not ok and msg == 'The storages have different types')
assert(totem.areStoragesNe(s1, s2) and totem.areStoragesEq(s1, s2, 2))
fails('First argument should be a Storage', totem.areStoragesEq, a, s1)
fails('StorageNE', totem.assertStorageNe, s1, s1)

-- general values and tables
assert(totem.areEq(1, 1.05, 0.1) and not totem.areEq(1, 2))
ok, msg = totem.areEq(1, 2)
assert(msg == 'numberEQ(==) violation: max diff=1, tolerance=0', msg)
ok, msg = totem.areEq(1, '1')
assert(not ok and msg == 'Arguments are not of the same type (got: number, expected: string)')
ok, msg = totem.areEq(1, '1', 0, true)
assert(ok == true and msg == nil)
ok, msg = totem.areEq('x', 'y')
assert(not ok and msg == 'stringEQ(==) violation: val1=x, val2=y')
ok, msg = totem.areEq('x', 'x', 0, true)
assert(not ok and msg == 'stringNE(==) violation: val1=x, val2=x')
local t1 = { 1, 'a', k = { a:clone() } }
local t2 = { 1, 'a', k = { a:clone() } }
ok, msg = totem.areTablesEq(t1, t2)
assert(ok and msg == 'The tables are equal.')
assert(not totem.areTablesEq(t1, { 1, 'a' }))
t2.k[1][1] = 5
assert(not totem.areTablesEq(t1, t2) and totem.areTablesEq(t1, t2, 4))
assert(totem.assertTableNe(t1, t2) and totem.assertTableEq(t1, t1))
fails('First argument should be a Table', totem.areTablesEq, 1, {})

-- Tester: eq/ne with ret only return the outcome
local tester = totem.Tester()
tester.assertionPass, tester.assertionFail = { [''] = 0 }, { [''] = 0 }
local n0 = 0
assert(tester:eq({ 1 }, { 1 }, '', 0, true) == true)
assert(tester:eq({ 1 }, { 2 }, '', 0, true) == false)
assert(tester:ne(1, 2, '', 0, true) == true)
assert(#tester.errors == n0, 'ret=true must not record a failure')
assert(tester:eq(1, 1) == true)
assert(tester:assertStorageEq(s1, s1, 0, 'same') == true)
assert(tester:assertStorageNe(s1, s2, 0, 'differ') == true)
assert(tester:assertStorageEq(s1, s2, 0, 'differ') == false and #tester.errors == 1)
assert(type(totem.Tester.CLoptions) == 'string' and totem.Tester.CLoptions:find('--rethrow', 1, true))

-- totem.TestSuite refuses duplicates
local suite = totem.TestSuite()
function suite.one() end
fails('Test one is already defined', function() suite.one = function() end end)

-- assertTensorEq on a totem.Tester compares sizes (torch.Tester only elements, by default)
local t3 = totem.Tester()
t3.assertionPass, t3.assertionFail = { [''] = 0 }, { [''] = 0 }
assert(t3:assertTensorEq(torch.ones(1, 2), torch.ones(2)) == false)

-- a run: counts, log file, errors
local runner = totem.Tester()
local tests = totem.TestSuite()
function tests.good() runner:eq(1, 1); runner:assert(true) end
function tests.bad() runner:eq(1, 2) end
runner:add(tests)
local oldwrite = io.write
io.write = function() end
local saved_arg = arg
arg = nil -- no command line for this run
local ran = pcall(runner.run, runner)
io.write = oldwrite
assert(not ran, 'a failing test makes run() raise')
assert(runner.assertionPass.good == 2 and runner.assertionFail.bad == 1 and runner.countasserts == 3)
local logname = os.tmpname()
runner.extraOutputFile = assert(io.open(logname, 'w'))
io.write = function() end
pcall(runner.run, runner, 'good')
io.write = oldwrite
arg = saved_arg
local log = io.open(logname):read('*a')
os.remove(logname)
assert(log == 'good 2 0 0\n[total] 2 0 0\n', log)

print('ok')
