-- Bad input raises an error that names the method and says what was wrong; nothing panics.
local H = dofile('torch_test_helpers.lua')

local v = torch.Tensor({ 1, 2, 3, 4, 5, 6 })
local m = torch.Tensor(2, 3)

local cases = {
   { function() return v:narrow(2, 1, 1) end, 'narrow: dimension 2 out of range of 1D tensor' },
   { function() return v:narrow(1, 5, 3) end, 'narrow: out of range' },
   { function() return v:narrow(1, 0, 1) end, 'narrow: out of range' },
   { function() return v:narrow(1, 'a', 1) end, 'narrow: bad argument #3 (number expected, got string)' },
   { function() return v:narrow(1, 1.5, 1) end, 'narrow: bad argument #3 (integer expected, got 1.5)' },
   { function() return v:select(1, 7) end, 'select: index 7 out of range for dimension of size 6' },
   { function() return m:select(3, 1) end, 'select: dimension 3 out of range of 2D tensor' },
   { function() return v:sub(2, 9) end, 'sub: range 2 to 9 out of bounds for dimension 1 of size 6' },
   { function() return v:sub(1, 2, 1, 2) end, 'sub: too many ranges' },
   { function() return v:transpose(1, 2) end, 'transpose: dimension 2 out of range of 1D tensor' },
   { function() return v:t() end, 't: t() expects a 2D tensor, got 1D' },
   { function() return v:unfold(1, 7, 1) end, 'unfold: size 7 larger than dimension of size 6' },
   { function() return v:unfold(1, 2, 0) end, 'unfold: size must be >= 0 and step >= 1' },
   { function() return torch.Tensor():unfold(1, 1, 1) end, 'unfold: dimension 1 out of range of 0D tensor' },
   { function() return v:view(4, -1) end, 'view: size mismatch, cannot infer -1 for 6 elements' },
   { function() return v:view(-1, -1) end, 'view: only one dimension can be inferred (-1)' },
   { function() return v:view(-2, 3) end, 'view: invalid size -2' },
   { function() return m:expand(3, 3) end, 'expand: the expanded size of dimension 1 (3) must match the existing size (2)' },
   { function() return m:expand(3) end, 'expand: the number of sizes provided (1) must be at least the number of dimensions (2)' },
   { function() return v:squeeze(2) end, 'squeeze: dimension 2 out of range of 1D tensor' },
   { function() return v:resize(-1) end, 'resize: invalid size -1' },
   { function() return v:resize('x') end, 'resize: bad argument #2 (number expected, got string)' },
   { function() return v:resizeAs(3) end, 'resizeAs: bad argument #2 (tensor expected, got number)' },
   { function() return v:size(2) end, 'size: dimension 2 out of range of 1D tensor' },
   { function() return v:size(0) end, 'size: dimension 0 out of range of 1D tensor' },
   { function() return v:stride(3) end, 'stride: dimension 3 out of range of 1D tensor' },
   { function() return v:copy(torch.Tensor(2)) end, 'copy: sizes do not match (6 elements vs 2)' },
   { function() return v:copy(nil) end, 'copy: bad argument #2 (tensor expected, got nil)' },
   { function() return v:fill() end, 'fill: bad argument #2 (number expected, got nil)' },
   { function() return v:isSameSizeAs({}) end, 'isSameSizeAs: bad argument #2 (tensor expected, got table)' },
   { function() return v:isSize({ 6 }) end, 'isSize: expected a LongStorage' },
   { function() return v:set('x') end, 'set: expected a tensor or a torch.DoubleStorage, got string' },
   { function() return v:type('torch.FooTensor') end, 'type: unknown tensor type torch.FooTensor' },
   { function() return v.narrow(3, 1, 1, 1) end, 'narrow: bad argument #1 (tensor expected, got number)' },
   { function() return v.size({}) end, 'size: bad argument #1 (tensor expected, got table)' },
   { function() return v.clone('x') end, 'clone: bad argument #1 (tensor expected, got string)' },
   { function() return v:maskedSelect(torch.ByteTensor(2)) end, 'maskedSelect: mask has 2 elements, tensor has 6' },
   { function() return v:maskedFill(torch.ByteTensor(6), 'x') end, 'maskedFill: bad argument #3 (number expected, got string)' },
   { function() return torch.Tensor(2, 'x') end, 'torch.DoubleTensor: bad argument #2 (number expected, got string)' },
   { function() return torch.FloatTensor({ {} , 1 }) end, 'torch.FloatTensor: ' },
   { function() return torch.LongTensor(true) end, 'torch.LongTensor: invalid arguments: boolean' },
   { function() return torch.DoubleStorage(-1) end, 'torch.DoubleStorage: invalid size -1' },
   { function() return torch.DoubleStorage({ 'a' }) end, 'torch.DoubleStorage: table must hold numbers' },
   { function() return torch.DoubleStorage(torch.DoubleStorage(2), 2, 5) end, 'torch.DoubleStorage: offset and size out of range of the source storage' },
   { function() return torch.DoubleStorage(torch.FloatStorage(2)) end, 'torch.DoubleStorage: source storage has a different type' },
   { function() return torch.DoubleStorage('/nonexistent/file') end, 'torch.DoubleStorage: cannot open /nonexistent/file: No such file or directory' },
   { function() return torch.FloatStorage(2):resize(-3) end, 'resize: invalid size -3' },
   { function() return torch.FloatStorage(2):string() end, 'string: only for ByteStorage and CharStorage' },
   { function() return torch.setdefaulttensortype('torch.Nope') end, 'torch.setdefaulttensortype: invalid tensor type torch.Nope' },
   { function() return torch.setdefaulttensortype('torch.FloatStorage') end, 'torch.setdefaulttensortype: invalid tensor type torch.FloatStorage' },
}
for i, case in ipairs(cases) do
   H.fails_containing(case[1], case[2], 'case ' .. i)
end

-- Errors from inside the core do not leave the receiver changed.
local r = torch.Tensor({ 1, 2, 3 })
pcall(function() r:resize(-1) end)
H.tensor(r, { 3 }, { 1, 2, 3 }, 'resize failure leaves the tensor alone')
pcall(function() r:copy(torch.Tensor(4):fill(9)) end)
H.tensor(r, { 3 }, { 1, 2, 3 }, 'copy failure leaves the tensor alone')

print('ok')
