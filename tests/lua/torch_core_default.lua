-- torch.setdefaulttensortype repoints torch.Tensor and torch.Storage.
local H = dofile('torch_test_helpers.lua')

H.eq(torch.getdefaulttensortype(), 'torch.DoubleTensor', 'the default is Double')
H.check(torch.Tensor == torch.DoubleTensor, 'torch.Tensor is DoubleTensor')
H.check(torch.Storage == torch.DoubleStorage, 'torch.Storage is DoubleStorage')
local before = torch.Tensor(2)

torch.setdefaulttensortype('torch.FloatTensor')
H.eq(torch.getdefaulttensortype(), 'torch.FloatTensor', 'getdefaulttensortype after the change')
H.check(torch.Tensor == torch.FloatTensor, 'torch.Tensor is FloatTensor')
H.check(torch.Storage == torch.FloatStorage, 'torch.Storage is FloatStorage')
H.eq(torch.typename(torch.Tensor(2)), 'torch.FloatTensor', 'new tensors are Float')
H.eq(torch.typename(torch.Tensor({ 1 })), 'torch.FloatTensor', 'table constructor is Float')
H.eq(torch.typename(torch.Storage(2)), 'torch.FloatStorage', 'new storages are Float')
H.eq(torch.typename(before), 'torch.DoubleTensor', 'existing tensors keep their type')
H.eq(torch.typename(before:real()), 'torch.FloatTensor', 'real() converts to the default')
H.eq(tostring(torch.Tensor({ 1 })), " 1\n[torch.FloatTensor of size 1]\n", 'printing names the type')

torch.setdefaulttensortype('torch.LongTensor')
H.eq(torch.typename(torch.Tensor(torch.LongStorage({ 2 }))), 'torch.LongTensor', 'Long default')
-- With Long as the default, torch.Tensor(LongStorage) uses the storage as data.
H.eq(torch.Tensor(torch.LongStorage({ 9, 8 }))[1], 9, 'torch.Tensor(LongStorage) is data for Long')

torch.setdefaulttensortype('torch.DoubleTensor')
H.check(torch.Tensor == torch.DoubleTensor, 'back to Double')
H.fails_containing(function() torch.setdefaulttensortype('torch.Nope') end, 'torch.setdefaulttensortype: invalid tensor type torch.Nope')
H.fails_containing(function() torch.setdefaulttensortype(nil) end, 'torch.setdefaulttensortype: invalid tensor type nil')
H.eq(torch.getdefaulttensortype(), 'torch.DoubleTensor', 'a failed change keeps the default')

print('ok')
