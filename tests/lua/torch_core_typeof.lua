-- torch.isTypeOf: whole names, patterns, constructors, classes and instances as the spec, the
-- parent chain; and torch.setheaptracking / torch._heaptracking.
local H = dofile('torch_test_helpers.lua')

torch.class('TypeofDummy')
torch.class('OtherTypeofDummy')
torch.class('TypeofMember')
torch.class('OtherTypeofMember')
local First = torch.class('FirstTypeofMember', 'TypeofMember')
torch.class('SecondTypeofMember', 'TypeofMember')
torch.class('ThirdTypeofMember', 'OtherTypeofMember')
local td, otd = TypeofDummy(), OtherTypeofDummy()
local m, fm, sm, tm = TypeofMember(), FirstTypeofMember(), SecondTypeofMember(), ThirdTypeofMember()

-- A plain name must be the whole type name: no match inside a longer one.
H.check(not torch.isTypeOf(td, 'OtherTypeofDummy'), 'a longer name')
H.check(not torch.isTypeOf(otd, 'TypeofDummy'), 'a name found inside the type name')
H.check(torch.isTypeOf(m, 'TypeofMember'), 'own name')
H.check(torch.isTypeOf(m, TypeofMember), 'own constructor')
H.check(torch.isTypeOf(fm, 'FirstTypeofMember') and torch.isTypeOf(fm, FirstTypeofMember), 'child')
H.check(torch.isTypeOf(fm, 'TypeofMember') and torch.isTypeOf(fm, TypeofMember), 'parent')
H.check(not torch.isTypeOf(sm, 'FirstTypeofMember'), 'a sibling')
H.check(not torch.isTypeOf(sm, FirstTypeofMember), 'a sibling constructor')
H.check(not torch.isTypeOf(tm, 'TypeofMember'), 'a parent whose name contains the spec')
H.check(not torch.isTypeOf(tm, TypeofMember), 'a parent whose name contains the constructor name')
H.check(torch.isTypeOf(tm, 'OtherTypeofMember'), 'the real parent')
-- The class table itself, and an instance, name a type too.
H.check(torch.isTypeOf(fm, First), 'a class table')
H.check(torch.isTypeOf(fm, m), 'an instance of the parent')
H.check(not torch.isTypeOf(m, fm), 'an instance of the child')

-- Anything a match does not reproduce verbatim is a pattern, and a partial match counts.
local t = torch.LongTensor()
H.check(torch.isTypeOf(t, torch.LongTensor), 'tensor constructor')
H.check(not torch.isTypeOf(t, torch.IntTensor), 'other tensor constructor')
H.check(torch.isTypeOf(t, 'torch.LongTensor'), 'tensor name')
H.check(not torch.isTypeOf(t, 'torch.Long'), 'a prefix is not a pattern')
H.check(torch.isTypeOf(t, 'torch.*Tensor'), 'pattern over the whole name')
H.check(torch.isTypeOf(t, '.*Long'), 'pattern over a prefix')
H.check(torch.isTypeOf(t, '^torch%.%a+Tensor$'), 'anchored pattern')
H.check(not torch.isTypeOf(t, 'torch.IntTensor'), 'other tensor name')
H.check(not torch.isTypeOf(t, '.*Storage'), 'pattern that does not match')
H.check(not torch.isTypeOf({}, 'TypeofMember'), 'plain table')
H.check(not torch.isTypeOf(3, 'number'), 'number')
H.check(not torch.isTypeOf(nil, 'TypeofMember'), 'nil')

-- A spec that names no type is an error.
local ok, err = pcall(torch.isTypeOf, m, {})
H.check(not ok and err:find('type must be provided as [regexp] string, or factory', 1, true), tostring(err))
ok, err = pcall(torch.isTypeOf, m, nil)
H.check(not ok and err:find('type must be provided', 1, true), tostring(err))

-- Heap tracking is on from the start; setheaptracking records the setting.
H.eq(torch._heaptracking, true, 'heap tracking starts on')
torch.setheaptracking(false)
H.eq(torch._heaptracking, false, 'off')
-- Tensors are still collected by Lua's own pacing with tracking off.
for _ = 1, 3 do local _ = torch.DoubleTensor(1000):fill(1) end
torch.setheaptracking(true)
H.eq(torch._heaptracking, true, 'on again')
torch.setheaptracking(nil)
H.eq(torch._heaptracking, false, 'nil turns it off')
torch.setheaptracking(1)
H.eq(torch._heaptracking, true, 'any true value turns it on')

print('ok')
