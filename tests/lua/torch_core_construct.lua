-- Every tensor constructor form, for the default type and the seven types.
local H = dofile('torch_test_helpers.lua')

-- T(): no dimension, no elements, no storage.
local e = torch.Tensor()
H.eq(torch.typename(e), 'torch.DoubleTensor', 'T() type')
H.eq(e:dim(), 0, 'T() dim')
H.eq(e:nElement(), 0, 'T() nElement')
H.eq(e:storage(), nil, 'T() storage')
H.eq(e:storageOffset(), 1, 'T() storageOffset')

-- T(sz1 [, sz2 [, sz3 [, sz4 ...]]]): contiguous, zero-filled here.
H.tensor(torch.Tensor(3), { 3 }, { 0, 0, 0 }, 'T(3)')
local t = torch.Tensor(2, 3)
H.tensor(t, { 2, 3 }, { 0, 0, 0, 0, 0, 0 }, 'T(2,3)')
H.list(t:stride():totable(), { 3, 1 }, 'T(2,3) strides')
H.eq(t:storage():size(), 6, 'T(2,3) storage size')
H.tensor(torch.Tensor(2, 3, 4), { 2, 3, 4 }, nil, 'T(2,3,4)')
H.list(torch.Tensor(2, 3, 4, 5):stride():totable(), { 60, 20, 5, 1 }, 'T(2,3,4,5) strides')
H.tensor(torch.Tensor(1, 2, 1, 2, 1), { 1, 2, 1, 2, 1 }, nil, 'T with five sizes')
H.eq(t:nElement(), 6, 'nElement')
H.eq(t:numel(), 6, 'numel')
H.eq(t:nDimension(), 2, 'nDimension')
H.check(t:isContiguous(), 'fresh tensors are contiguous')
-- A size of 0 ends the dimensions, as in Torch.
H.eq(torch.Tensor(0):dim(), 0, 'T(0) has no dimension')
H.tensor(torch.Tensor(2, 0), { 2 }, nil, 'T(2,0) is 1-D')
H.eq(torch.Tensor(0):storage(), nil, 'T(0) has no storage')

-- T(LongStorage sizes [, LongStorage strides]).
local s = torch.Tensor(torch.LongStorage({ 2, 4 }))
H.tensor(s, { 2, 4 }, { 0, 0, 0, 0, 0, 0, 0, 0 }, 'T(LongStorage)')
local st = torch.Tensor(torch.LongStorage({ 2, 3 }), torch.LongStorage({ 1, 2 }))
H.list(st:stride():totable(), { 1, 2 }, 'T(sizes, strides) strides')
H.check(not st:isContiguous(), 'column-major strides are not contiguous')
H.eq(st:storage():size(), 6, 'storage covers the strided view')
st[{ 2, 3 }] = 7
H.eq(st:storage()[6], 7, 'element (2,3) is at offset 1*1 + 2*2')

-- torch.LongTensor(LongStorage) uses the storage as data, not as sizes.
local ls = torch.LongStorage({ 5, 6, 7 })
local lt = torch.LongTensor(ls)
H.tensor(lt, { 3 }, { 5, 6, 7 }, 'LongTensor(LongStorage)', 'torch.LongTensor')
lt[1] = 50
H.eq(ls[1], 50, 'LongTensor(LongStorage) shares the storage')
-- Every other type reads a LongStorage as sizes.
for _, T in ipairs(H.types) do
   if T ~= 'Long' then
      H.tensor(torch[T .. 'Tensor'](torch.LongStorage({ 3, 2 })), { 3, 2 }, nil, T .. 'Tensor(LongStorage)')
   end
end

-- T(tensor) shares the view and the storage.
local base = torch.Tensor({ { 1, 2 }, { 3, 4 } })
local alias = torch.Tensor(base)
H.tensor(alias, { 2, 2 }, { 1, 2, 3, 4 }, 'T(tensor)')
alias[1][1] = 10
H.eq(base[1][1], 10, 'T(tensor) writes are seen by the original')
H.check(torch.pointer(alias) ~= torch.pointer(base), 'T(tensor) is a new tensor object')
local tview = torch.Tensor(base:t())
H.list(tview:stride():totable(), { 1, 2 }, 'T(tensor) keeps the strides')

-- T(storage [, offset [, sizes [, strides]]]).
local data = torch.DoubleStorage({ 1, 2, 3, 4, 5, 6 })
H.tensor(torch.Tensor(data), { 6 }, { 1, 2, 3, 4, 5, 6 }, 'T(storage)')
H.tensor(torch.Tensor(data, 2, torch.LongStorage({ 2, 2 })), { 2, 2 }, { 2, 3, 4, 5 }, 'T(storage, 2, sizes)')
H.eq(torch.Tensor(data, 2, torch.LongStorage({ 2, 2 })):storageOffset(), 2, 'storageOffset is 1-based')
H.tensor(torch.Tensor(data, 1, torch.LongStorage({ 3, 2 }), torch.LongStorage({ 1, 3 })),
   { 3, 2 }, { 1, 4, 2, 5, 3, 6 }, 'T(storage, 1, sizes, strides)')
-- (storage, offset, size1, stride1, size2, stride2): a missing stride is computed.
H.tensor(torch.Tensor(data, 2, 2, 3), { 2 }, { 2, 5 }, 'T(storage, 2, 2, 3)')
H.tensor(torch.Tensor(data, 1, 2, 1, 3, 2), { 2, 3 }, { 1, 3, 5, 2, 4, 6 }, 'T(storage, 1, 2, 1, 3, 2)')
local mixed = torch.Tensor(data, 1, 2, 3, 3)
H.list(mixed:stride():totable(), { 3, 1 }, 'missing last stride is 1')
-- An offset without sizes gives a tensor with no dimension on that storage (Torch's rule).
local nodim = torch.Tensor(data, 3)
H.eq(nodim:dim(), 0, 'T(storage, offset) dim')
H.eq(nodim:storageOffset(), 3, 'T(storage, offset) offset')
local sh = torch.Tensor(data)
sh[6] = 60
H.eq(data[6], 60, 'T(storage) shares the storage')
H.fails_containing(function() return torch.Tensor(data, 7, torch.LongStorage({ 1 })) end, 'torch.DoubleTensor: storage offset 7 out of range')
H.fails_containing(function() return torch.Tensor(data, 1, torch.LongStorage({ 7 })) end, 'torch.DoubleTensor: the view extends past the end of the storage')
H.fails_containing(function() return torch.Tensor(torch.FloatStorage(2)) end, 'torch.DoubleTensor: expected a torch.DoubleStorage, got a torch.FloatStorage')

-- T(table): nested tables are dimensions.
H.tensor(torch.Tensor({ 1, 2, 3 }), { 3 }, { 1, 2, 3 }, 'T{1,2,3}')
H.tensor(torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }), { 2, 3 }, { 1, 2, 3, 4, 5, 6 }, 'T{{..},{..}}')
H.tensor(torch.Tensor({ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }), { 2, 2, 2 }, { 1, 2, 3, 4, 5, 6, 7, 8 }, 'T 3-D table')
H.eq(torch.Tensor({}):dim(), 0, 'T{} has no dimension')
H.tensor(torch.IntTensor({ 1.7, -2.7 }), { 2 }, { 1, -2 }, 'IntTensor{1.7,-2.7} truncates', 'torch.IntTensor')
H.tensor(torch.FloatTensor({ 0.5 }), { 1 }, { 0.5 }, 'FloatTensor{0.5}', 'torch.FloatTensor')
H.tensor(torch.ByteTensor({ 255, 1 }), { 2 }, { 255, 1 }, 'ByteTensor{255,1}', 'torch.ByteTensor')
H.tensor(torch.CharTensor({ -128, 127 }), { 2 }, { -128, 127 }, 'CharTensor', 'torch.CharTensor')
H.tensor(torch.ShortTensor({ -32768, 32767 }), { 2 }, { -32768, 32767 }, 'ShortTensor', 'torch.ShortTensor')
H.tensor(torch.LongTensor({ 2 ^ 40, -3 }), { 2 }, { 2 ^ 40, -3 }, 'LongTensor keeps 2^40', 'torch.LongTensor')
H.fails_containing(function() return torch.Tensor({ 1, 'a' }) end, 'torch.DoubleTensor: table element is a string, expected a number')
H.fails_containing(function() return torch.Tensor({ { 1, 2 }, { 3 } }) end, 'torch.DoubleTensor: inconsistent table sizes')
H.fails_containing(function() return torch.Tensor('abc') end, 'torch.DoubleTensor: invalid arguments: string')
H.fails_containing(function() return torch.Tensor(-1) end, 'torch.DoubleTensor: invalid size -1')
H.fails_containing(function() return torch.Tensor(torch.FloatTensor(2)) end, 'torch.DoubleTensor: expected a torch.DoubleTensor to share, got a torch.FloatTensor')

-- x.new(...) makes a tensor of x's type with the constructor's arguments.
local f = torch.FloatTensor(2)
H.tensor(f.new(), {}, nil, 'x.new()', 'torch.FloatTensor')
H.tensor(f.new(3, 4), { 3, 4 }, nil, 'x.new(3,4)', 'torch.FloatTensor')
H.tensor(torch.FloatTensor.new({ 1, 2 }), { 2 }, { 1, 2 }, 'FloatTensor.new(table)', 'torch.FloatTensor')
local shared = f.new(f)
shared[1] = 3
H.eq(f[1], 3, 'x.new(x) shares')

-- Every type: sizes, element size, type name.
local elementSizes = { Byte = 1, Char = 1, Short = 2, Int = 4, Long = 8, Float = 4, Double = 8 }
for _, T in ipairs(H.types) do
   local x = torch[T .. 'Tensor'](2, 2)
   H.tensor(x, { 2, 2 }, { 0, 0, 0, 0 }, T .. 'Tensor(2,2)', 'torch.' .. T .. 'Tensor')
   H.eq(x:storage():elementSize(), elementSizes[T], T .. ' element size')
   H.eq(torch.typename(x:storage()), 'torch.' .. T .. 'Storage', T .. ' storage type')
end

-- size() is a LongStorage; #t is the same; size(d) a number.
local z = torch.Tensor(4, 5)
H.eq(torch.typename(z:size()), 'torch.LongStorage', 'size() type')
H.list(z:size():totable(), { 4, 5 }, 'size()')
H.list((#z):totable(), { 4, 5 }, '#t')
H.eq(z:size(2), 5, 'size(2)')
H.eq(z:stride(1), 5, 'stride(1)')
H.check(z:isSize(torch.LongStorage({ 4, 5 })), 'isSize')
H.check(not z:isSize(torch.LongStorage({ 5, 4 })), 'isSize false')
H.check(z:isSameSizeAs(torch.FloatTensor(4, 5)), 'isSameSizeAs across types')

print('ok')
