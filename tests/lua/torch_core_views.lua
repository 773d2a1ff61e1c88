-- View operations share storage with their source and never copy; clone and contiguous (when it
-- must) do copy.
local H = dofile('torch_test_helpers.lua')

local function range2d()
   return torch.Tensor({ { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 } })
end

-- narrow
local x = range2d()
local n = x:narrow(2, 2, 2)
H.tensor(n, { 3, 2 }, { 2, 3, 6, 7, 10, 11 }, 'narrow(2,2,2)')
H.eq(n:storageOffset(), 2, 'narrow offset')
H.list(n:stride():totable(), { 4, 1 }, 'narrow strides')
H.check(not n:isContiguous(), 'narrowed columns are not contiguous')
H.shares(n, x, 'narrow')
n[1][1] = 20
H.eq(x[1][2], 20, 'narrow writes through')
H.tensor(torch.narrow(x, 1, 3, 1), { 1, 4 }, { 9, 10, 11, 12 }, 'torch.narrow')

-- select
x = range2d()
local row = x:select(1, 2)
H.tensor(row, { 4 }, { 5, 6, 7, 8 }, 'select(1,2)')
local col = x:select(2, 3)
H.tensor(col, { 3 }, { 3, 7, 11 }, 'select(2,3)')
H.eq(col:stride(1), 4, 'column stride')
col[2] = 70
H.eq(x[2][3], 70, 'select writes through')
H.eq(torch.Tensor({ 4, 5, 6 }):select(1, 2), 5, 'select on a 1-D tensor gives the number')
H.tensor(torch.select(x, 1, 2), { 4 }, { 5, 6, 70, 8 }, 'torch.select')

-- sub: inclusive ranges, negative from the end
x = range2d()
local s = x:sub(2, 3, 2, -1)
H.tensor(s, { 2, 3 }, { 6, 7, 8, 10, 11, 12 }, 'sub(2,3,2,-1)')
H.tensor(x:sub(-1, -1), { 1, 4 }, { 9, 10, 11, 12 }, 'sub(-1,-1)')
s:fill(0)
H.list(H.flat(x), { 1, 2, 3, 4, 5, 0, 0, 0, 9, 0, 0, 0 }, 'sub writes through')

-- view, with one -1
x = torch.Tensor({ 1, 2, 3, 4, 5, 6 })
local v = x:view(2, 3)
H.tensor(v, { 2, 3 }, { 1, 2, 3, 4, 5, 6 }, 'view(2,3)')
H.shares(v, x, 'view')
H.tensor(x:view(3, -1), { 3, 2 }, nil, 'view(3,-1)')
H.tensor(x:view(-1), { 6 }, nil, 'view(-1)')
H.tensor(x:view(torch.LongStorage({ 1, 6 })), { 1, 6 }, nil, 'view(LongStorage)')
v[2][1] = 40
H.eq(x[4], 40, 'view writes through')
local res = torch.Tensor()
res:view(x, 2, 3)
H.tensor(res, { 2, 3 }, nil, 'res:view(src, sizes)')
H.shares(res, x, 'res:view')
H.fails_containing(function() return x:view(4, -1) end, 'view: size mismatch')
H.fails_containing(function() return x:view(5) end, 'view: size mismatch')
H.fails_containing(function() return range2d():t():view(12) end, 'view: input is not contiguous')

-- viewAs
local va = x:viewAs(torch.FloatTensor(3, 2))
H.tensor(va, { 3, 2 }, nil, 'viewAs')
H.shares(va, x, 'viewAs')

-- transpose and t
x = range2d()
local tt = x:t()
H.tensor(tt, { 4, 3 }, { 1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12 }, 't()')
H.list(tt:stride():totable(), { 1, 4 }, 't() strides')
H.shares(tt, x, 't')
tt[4][3] = 120
H.eq(x[3][4], 120, 't writes through')
local y = torch.Tensor(2, 3, 4)
local tr = y:transpose(1, 3)
H.list(tr:size():totable(), { 4, 3, 2 }, 'transpose(1,3) sizes')
H.list(tr:stride():totable(), { 1, 4, 12 }, 'transpose(1,3) strides')
H.list(y:transpose(2, 2):stride():totable(), { 12, 4, 1 }, 'transpose(d,d)')

-- unfold
local u = torch.Tensor({ 1, 2, 3, 4, 5, 6, 7 }):unfold(1, 3, 2)
H.tensor(u, { 3, 3 }, { 1, 2, 3, 3, 4, 5, 5, 6, 7 }, 'unfold(1,3,2)')
H.list(u:stride():totable(), { 2, 1 }, 'unfold strides')
u[1][3] = 30
H.eq(u[2][1], 30, 'unfolded windows overlap in memory')

-- expand and expandAs (stride 0)
local c = torch.Tensor({ { 1 }, { 2 } })
local ex = c:expand(2, 3)
H.tensor(ex, { 2, 3 }, { 1, 1, 1, 2, 2, 2 }, 'expand(2,3)')
H.list(ex:stride():totable(), { 1, 0 }, 'expand strides')
H.shares(ex, c, 'expand')
c[2][1] = 5
H.list(H.flat(ex), { 1, 1, 1, 5, 5, 5 }, 'expand sees writes')
H.tensor(c:expandAs(torch.Tensor(2, 4)), { 2, 4 }, nil, 'expandAs')
H.tensor(torch.Tensor({ 7 }):expand(torch.LongStorage({ 3 })), { 3 }, { 7, 7, 7 }, 'expand(LongStorage)')
H.fails_containing(function() return torch.Tensor(2, 3):expand(2, 4) end, 'expand: ')

-- squeeze: a new view, the receiver left alone (as Torch7's cwrap, whose result defaults to a new
-- tensor); res:squeeze(src) sets res; keeps one dimension when all are 1
local sq = torch.Tensor(1, 3, 1, 2)
local r = sq:squeeze()
H.check(r ~= sq, 'squeeze returns a new tensor')
H.tensor(r, { 3, 2 }, nil, 'squeeze()')
H.tensor(sq, { 1, 3, 1, 2 }, nil, 'squeeze() leaves the receiver alone')
H.shares(r, sq, 'squeeze()')
local sq2 = torch.Tensor(1, 3, 1)
H.tensor(sq2:squeeze(1), { 3, 1 }, nil, 'squeeze(1)')
H.tensor(sq2, { 1, 3, 1 }, nil, 'squeeze(1) leaves the receiver alone')
H.tensor(sq2:squeeze(2), { 1, 3, 1 }, nil, 'squeeze of a dimension that is not 1 does nothing')
local res = torch.Tensor()
H.check(res:squeeze(sq2) == res, 'res:squeeze(src) returns res')
H.tensor(res, { 3 }, nil, 'res:squeeze(src) sets res')
H.tensor(sq2, { 1, 3, 1 }, nil, 'res:squeeze(src) leaves src alone')
-- one element: Torch7 gives the number
local one = torch.Tensor(1, 1):fill(7)
H.check(one:squeeze() == 7, 'squeeze of one element is a number')
H.tensor(one, { 1, 1 }, nil, 'squeeze of one element leaves the receiver alone')
H.check(torch.Tensor({ 5 }):squeeze(1) == 5, 'squeeze(1) of a one-element vector is a number')
H.check(torch.isTensor(torch.Tensor(1, 1):squeeze(1)), 'squeeze(dim) of a matrix stays a tensor')
H.check(torch.squeeze(torch.Tensor(1, 1, 1):fill(2)) == 2, 'torch.squeeze of one element')
local base = torch.Tensor(1, 4)
local tsq = torch.squeeze(base)
H.tensor(tsq, { 4 }, nil, 'torch.squeeze')
H.tensor(base, { 1, 4 }, nil, 'torch.squeeze leaves its argument alone')
H.shares(tsq, base, 'torch.squeeze')

-- resize and resizeAs: same object, storage grows but is kept
local rz = torch.Tensor({ 1, 2, 3, 4 })
local storage = rz:storage()
H.check(rz:resize(2, 2) == rz, 'resize returns the receiver')
H.tensor(rz, { 2, 2 }, { 1, 2, 3, 4 }, 'resize(2,2) keeps the data')
H.check(torch.pointer(rz:storage()) == torch.pointer(storage), 'resize to fewer elements keeps the storage')
rz:resize(3, 3)
H.tensor(rz, { 3, 3 }, nil, 'resize(3,3)')
H.eq(rz:storage():size(), 9, 'storage grew')
H.list({ rz[1][1], rz[1][2], rz[1][3], rz[2][1] }, { 1, 2, 3, 4 }, 'grown storage keeps its prefix')
rz:resize(torch.LongStorage({ 4 }))
H.tensor(rz, { 4 }, { 1, 2, 3, 4 }, 'resize(LongStorage)')
H.eq(rz:storage():size(), 9, 'storage never shrinks')
local ra = torch.Tensor(5)
ra:resizeAs(torch.FloatTensor(2, 3))
H.tensor(ra, { 2, 3 }, nil, 'resizeAs')
local tview = range2d():t()
tview:resize(4, 3)
H.list(tview:stride():totable(), { 1, 4 }, 'resize to the same sizes keeps the strides')
local empty = torch.Tensor()
empty:resize(3)
H.tensor(empty, { 3 }, { 0, 0, 0 }, 'resize gives an empty tensor memory')
empty:resize(0)
H.eq(empty:dim(), 0, 'resize(0) leaves no dimension')

-- set
local src = range2d()
local dst = torch.Tensor()
H.check(dst:set(src) == dst, 'set returns the receiver')
H.tensor(dst, { 3, 4 }, nil, 'set(tensor)')
H.shares(dst, src, 'set(tensor)')
dst[1][1] = 100
H.eq(src[1][1], 100, 'set(tensor) writes through')
local sdata = torch.DoubleStorage({ 1, 2, 3, 4, 5, 6 })
dst:set(sdata, 2, torch.LongStorage({ 2, 2 }))
H.tensor(dst, { 2, 2 }, { 2, 3, 4, 5 }, 'set(storage, offset, sizes)')
dst:set(sdata)
H.tensor(dst, { 6 }, { 1, 2, 3, 4, 5, 6 }, 'set(storage)')
dst:set()
H.eq(dst:dim(), 0, 'set() empties')
H.fails_containing(function() torch.Tensor():set(torch.FloatTensor(2)) end, 'set: ')

-- contiguous: the same object when already contiguous, a copy otherwise
local cx = range2d()
H.check(cx:contiguous() == cx, 'contiguous() of a contiguous tensor is the tensor itself')
local ct = cx:t():contiguous()
H.check(ct:isContiguous(), 'contiguous() result is contiguous')
H.tensor(ct, { 4, 3 }, { 1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12 }, 'contiguous() of t()')
H.check(torch.pointer(ct:storage()) ~= torch.pointer(cx:storage()), 'contiguous() of a view copies')
ct[1][1] = -1
H.eq(cx[1][1], 1, 'the copy is independent')

-- clone: always a contiguous copy of the same type
local cl = cx:t():clone()
H.tensor(cl, { 4, 3 }, { 1, 5, 9, 2, 6, 10, 3, 7, 11, 4, 8, 12 }, 'clone of t()')
H.check(cl:isContiguous(), 'clone is contiguous')
cl[1][1] = 99
H.eq(cx[1][1], 1, 'clone is independent')
H.eq(torch.typename(torch.IntTensor(2):clone()), 'torch.IntTensor', 'clone keeps the type')
H.eq(torch.Tensor():clone():dim(), 0, 'clone of an empty tensor')

-- A chain of views addresses the right elements.
local big = torch.Tensor(4, 5, 6)
local bs = big:storage()
for i = 1, bs:size() do bs[i] = i end
local chain = big:narrow(1, 2, 2):select(3, 4):t():narrow(1, 2, 3)
H.tensor(chain, { 3, 2 }, { 40, 70, 46, 76, 52, 82 }, 'narrow/select/t/narrow chain')

-- permute, unsqueeze, split, chunk: views too.
local pz = torch.Tensor(2, 3, 4)
local pp = pz:permute(3, 1, 2)
H.list(pp:size():totable(), { 4, 2, 3 }, 'permute sizes')
H.list(pp:stride():totable(), { 1, 12, 4 }, 'permute strides')
H.shares(pp, pz, 'permute')
H.list(pz:unsqueeze(2):size():totable(), { 2, 1, 3, 4 }, 'unsqueeze(2)')
H.list(pz:unsqueeze(4):size():totable(), { 2, 3, 4, 1 }, 'unsqueeze at the end')
local sp = range2d():split(3, 2)
H.eq(#sp, 2, 'split count')
H.tensor(sp[1], { 3, 3 }, { 1, 2, 3, 5, 6, 7, 9, 10, 11 }, 'split first part')
H.tensor(sp[2], { 3, 1 }, { 4, 8, 12 }, 'split remainder')
local chunks = torch.chunk(range2d(), 2, 1)
H.eq(#chunks, 2, 'chunk count')
H.tensor(chunks[1], { 2, 4 }, nil, 'chunk 1')
H.tensor(chunks[2], { 1, 4 }, { 9, 10, 11, 12 }, 'chunk 2')
local parts = range2d()
H.shares(parts:split(2)[2], parts, 'split parts are views')

-- totable and repeatTensor copy.
local tt2 = range2d():totable()
H.eq(#tt2, 3, 'totable rows')
H.list(tt2[2], { 5, 6, 7, 8 }, 'totable row 2')
H.eq(#torch.Tensor():totable(), 0, 'totable of an empty tensor')
H.tensor(torch.Tensor({ 1, 2 }):repeatTensor(2, 2), { 2, 4 }, { 1, 2, 1, 2, 1, 2, 1, 2 }, 'repeatTensor')

-- storages compare by the memory they hold: each t:storage() is a new userdata over it
local st = torch.Tensor(4)
H.check(st:storage() == st:storage(), 'a tensor\'s storage equals itself')
H.check(st:narrow(1, 2, 2):storage() == st:storage(), 'a view shares its storage')
H.check(st:storage() ~= torch.Tensor(4):storage(), 'other memory, another storage')
H.check(torch.FloatStorage(0) ~= torch.FloatStorage(0), 'two empty storages are two')

print('ok')
