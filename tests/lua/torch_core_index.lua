-- t[i], t[{...}], t[LongStorage], t[mask] reading and assignment.
local H = dofile('torch_test_helpers.lua')

local function m()
   return torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } })
end

-- Numbers: a row (a view) above 1-D, the element in 1-D; negative counts from the end.
local x = m()
H.tensor(x[2], { 3 }, { 4, 5, 6 }, 'x[2]')
H.shares(x[2], x, 'x[2]')
H.eq(x[2][3], 6, 'x[2][3]')
H.eq(x[-1][-1], 9, 'x[-1][-1]')
H.tensor(x[-3], { 3 }, { 1, 2, 3 }, 'x[-3]')
local v = torch.Tensor({ 10, 20, 30 })
H.eq(v[1], 10, 'v[1]')
H.eq(v[-1], 30, 'v[-1]')
H.eq(type(v[2]), 'number', '1-D element is a number')
H.eq(torch.IntTensor({ 7 })[1], 7, 'IntTensor element')
H.fails_containing(function() return v[4] end, '__index: index 4 out of range for dimension of size 3')
H.fails_containing(function() return v[-4] end, '__index: index -4 out of range')
H.fails_containing(function() return v[0] end, '__index: index 0 out of range')
H.fails_containing(function() return torch.Tensor()[1] end, '__index: cannot index an empty tensor')

-- A LongStorage: one element.
H.eq(x[torch.LongStorage({ 2, 3 })], 6, 'x[LongStorage{2,3}]')
H.eq(x[torch.LongStorage({ -1, 1 })], 7, 'x[LongStorage{-1,1}]')
H.fails_containing(function() return x[torch.LongStorage({ 1 })] end, '__index: expected 2 indices, got 1')

-- Tables of numbers, ranges {a,b}, {a} and {}.
H.eq(x[{ 2, 3 }], 6, 'x[{2,3}]')
H.eq(x[{ -1, -2 }], 8, 'x[{-1,-2}]')
H.tensor(x[{ 2 }], { 3 }, { 4, 5, 6 }, 'x[{2}] selects a row')
H.tensor(x[{ {}, 2 }], { 3 }, { 2, 5, 8 }, 'x[{{},2}]')
H.tensor(x[{ { 2, 3 }, { 1, 2 } }], { 2, 2 }, { 4, 5, 7, 8 }, 'x[{{2,3},{1,2}}]')
H.tensor(x[{ { 2 }, {} }], { 1, 3 }, { 4, 5, 6 }, 'x[{{2},{}}] keeps the dimension')
H.tensor(x[{ 2, { 2, -1 } }], { 2 }, { 5, 6 }, 'x[{2,{2,-1}}]')
H.tensor(x[{ { -2, -1 }, -1 }], { 2 }, { 6, 9 }, 'x[{{-2,-1},-1}]')
H.tensor(x[{}], { 3, 3 }, nil, 'x[{}] is the whole tensor')
H.shares(x[{ { 2, 3 }, { 1, 2 } }], x, 'ranges are views')
H.eq(v[{ 2 }], 20, 'v[{2}] on 1-D is the number')
H.tensor(v[{ { 2, 3 } }], { 2 }, { 20, 30 }, 'v[{{2,3}}]')
local c3 = torch.Tensor(2, 3, 4)
for i = 1, c3:storage():size() do c3:storage()[i] = i end
H.tensor(c3[{ 2, {}, 3 }], { 3 }, { 15, 19, 23 }, '3-D x[{2,{},3}]')
H.tensor(c3[{ {}, 3 }], { 2, 4 }, { 9, 10, 11, 12, 21, 22, 23, 24 }, '3-D x[{{},3}]')
H.eq(c3[{ 2, 3, 4 }], 24, '3-D element')
H.fails_containing(function() return x[{ 1, 2, 3 }] end, '__index: too many indices (3) for a 2D tensor')
H.fails_containing(function() return x[{ { 1, 4 } }] end, '__index: range {1, 4} out of bounds for dimension 1 of size 3')
H.fails_containing(function() return x[{ { 3, 2 } }] end, '__index: range {3, 2} out of bounds')
H.fails_containing(function() return x[{ 4 }] end, '__index: index 4 out of range for dimension of size 3')
H.fails_containing(function() return x[{ 'a' }] end, '__index: index table entries must be numbers or tables, got string')

-- ByteTensor masks select, in logical order, into a new 1-D tensor.
local mask = torch.ByteTensor({ { 1, 0, 1 }, { 0, 1, 0 }, { 0, 0, 1 } })
local sel = x[mask]
H.tensor(sel, { 4 }, { 1, 3, 5, 9 }, 'x[mask]', 'torch.DoubleTensor')
sel[1] = 100
H.eq(x[1][1], 1, 'x[mask] is a copy')
H.tensor(x:t()[mask], { 4 }, { 1, 7, 5, 9 }, 'mask over a transposed view')
H.eq(x[torch.ByteTensor(3, 3):zero()]:dim(), 0, 'an all-zero mask selects nothing')
H.fails_containing(function() return x[torch.ByteTensor(4)] end, '__index: mask has 4 elements, tensor has 9')
H.fails_containing(function() return x[torch.FloatTensor(3, 3)] end, '__index: mask must be a ByteTensor')

-- Assignment: numbers fill, tensors copy (any type, same element count).
x = m()
x[2] = 0
H.list(H.flat(x), { 1, 2, 3, 0, 0, 0, 7, 8, 9 }, 'x[2] = 0 fills the row')
x[2] = torch.FloatTensor({ 4, 5, 6 })
H.list(H.flat(x), { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, 'x[2] = tensor copies')
x[-1][-1] = 90
H.eq(x[3][3], 90, 'x[-1][-1] = 90')
x[{ 1, 2 }] = 20
H.eq(x[1][2], 20, 'x[{1,2}] = 20')
x[{ {}, 1 }] = -1
H.list(H.flat(x), { -1, 20, 3, -1, 5, 6, -1, 8, 90 }, 'x[{{},1}] = -1')
x[{ { 1, 2 }, { 2, 3 } }] = torch.Tensor({ { 11, 12 }, { 13, 14 } })
H.list(H.flat(x), { -1, 11, 12, -1, 13, 14, -1, 8, 90 }, 'x[{{1,2},{2,3}}] = tensor')
x[{ { 3 }, {} }] = torch.LongTensor({ { 7, 7, 7 } })
H.list(H.flat(x:select(1, 3)), { 7, 7, 7 }, 'x[{{3},{}}] = LongTensor')
x[torch.LongStorage({ 1, 1 })] = 5
H.eq(x[1][1], 5, 'x[LongStorage] = 5')
x[{}] = 0
H.list(H.flat(x), { 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 'x[{}] = 0')
v = torch.Tensor({ 10, 20, 30 })
v[2] = 25
v[-1] = 35
H.list(H.flat(v), { 10, 25, 35 }, '1-D assignment')
v[1] = torch.Tensor({ 1 })
H.eq(v[1], 1, 'v[1] = one-element tensor')
local iv = torch.IntTensor(2)
iv[1] = 2.9
H.eq(iv[1], 2, 'assigning 2.9 to an IntTensor truncates')
H.fails_containing(function() v[4] = 1 end, '__newindex: index 4 out of range for dimension of size 3')
H.fails_containing(function() x[2] = torch.Tensor(2) end, '__newindex: sizes do not match (3 elements vs 2)')
H.fails_containing(function() x[2] = 'a' end, '__newindex: expected a number or a tensor')

-- Mask assignment: a number fills, a tensor supplies the values in order.
x = m()
x[mask] = 0
H.list(H.flat(x), { 0, 2, 0, 4, 0, 6, 7, 8, 0 }, 'x[mask] = 0')
x[mask] = torch.Tensor({ 10, 30, 50, 90 })
H.list(H.flat(x), { 10, 2, 30, 4, 50, 6, 7, 8, 90 }, 'x[mask] = tensor')
H.fails_containing(function() x[mask] = torch.Tensor(2) end, '__newindex: source has 2 elements, mask selects 4')
H.fails_containing(function() x[mask] = 'a' end, '__newindex: a mask assignment takes a number or a tensor')

-- Method names still resolve; unknown string keys are nil.
H.eq(type(x.fill), 'function', 'methods reachable through indexing')
H.eq(x.noSuchMethod, nil, 'unknown string key')

-- Storage indexing.
local s = torch.FloatStorage({ 1.5, 2.5, 3.5 })
H.eq(s[1], 1.5, 's[1]')
H.eq(s[-1], 3.5, 's[-1]')
s[2] = 9
H.eq(s[2], 9, 's[2] = 9')
H.fails_containing(function() return s[4] end, '__index: index 4 out of range for dimension of size 3')
H.fails_containing(function() s[4] = 1 end, '__newindex: index 4 out of range')
H.fails_containing(function() s[1] = 'x' end, '__newindex: storage value must be a number')

print('ok')
