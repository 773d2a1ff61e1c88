-- torch.setnumthreads/getnumthreads set and read OpenBLAS's thread count; products stay exact
-- with one thread and with several.

local H = dofile('torch_linalg_helpers.lua')

local n0 = torch.getnumthreads()
H.eq(type(n0), 'number', 'getnumthreads returns a number')
H.check(n0 >= 1, 'at least one thread')
H.eq(torch.setnumthreads(1), nil, 'setnumthreads returns nothing')
H.eq(torch.getnumthreads(), 1, 'one thread')

-- A product big enough for OpenBLAS to split across threads, checked element by element.
local n = 300
local a = torch.DoubleTensor(n, n)
local b = torch.DoubleTensor(n, n)
for i = 1, n do
   for j = 1, n do
      a[i][j] = (i + 2 * j) % 7 - 3
      b[i][j] = (3 * i + j) % 5 - 2
   end
end
local one = torch.mm(a, b)
torch.setnumthreads(2)
H.eq(torch.getnumthreads(), 2, 'two threads')
local two = torch.mm(a, b)
local fone = torch.mm(a:float(), b:float())
for _, i in ipairs { 1, 2, 150, 299, 300 } do
   for _, j in ipairs { 1, 77, 300 } do
      local s = 0
      for k = 1, n do s = s + a[i][k] * b[k][j] end
      H.eq(one[i][j], s, 'one thread, element ' .. i .. ',' .. j)
      H.eq(two[i][j], s, 'two threads, element ' .. i .. ',' .. j)
      H.eq(fone[i][j], s, 'float, element ' .. i .. ',' .. j)
   end
end
torch.setnumthreads(n0)
H.eq(torch.getnumthreads(), n0, 'back to the default')

-- Every tensor class has the methods, and torch has the function forms.
for _, T in ipairs { 'Byte', 'Char', 'Short', 'Int', 'Long', 'Float', 'Double' } do
   for _, name in ipairs { 'mm', 'mv', 'bmm', 'addmm', 'addmv', 'addr', 'addbmm', 'baddbmm', 'dot', 'ger',
      'cross', 'trace', 'diag', 'tril', 'triu' } do
      H.eq(type(torch[T .. 'Tensor'](1)[name]), 'function', T .. 'Tensor:' .. name)
      H.eq(type(torch[name]), 'function', 'torch.' .. name)
   end
end
print('ok')
