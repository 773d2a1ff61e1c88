-- The tensor methods written in Lua (lua/torch/Tensor.lua).
local function same(t, expected, what)
   local flat = t:contiguous():view(t:nElement())
   assert(flat:nElement() == #expected, what .. ': ' .. flat:nElement() .. ' elements, expected ' .. #expected)
   for i = 1, #expected do
      assert(flat[i] == expected[i], what .. ': element ' .. i .. ' is ' .. flat[i] .. ', expected ' .. expected[i])
   end
end

local x = torch.Tensor({ 1, 2 })
local r = torch.repeatTensor(x, 2, 2)
assert(r:dim() == 2 and r:size(1) == 2 and r:size(2) == 4, 'repeatTensor size')
same(r, { 1, 2, 1, 2, 1, 2, 1, 2 }, 'repeatTensor values')
local res = torch.Tensor()
assert(res:repeatTensor(x, 3) == res, 'result form returns the result')
same(res, { 1, 2, 1, 2, 1, 2 }, 'repeatTensor into a result')
local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
same(m:repeatTensor(1, 2), { 1, 2, 1, 2, 3, 4, 3, 4 }, 'repeatTensor of a matrix')
same(m:t():repeatTensor(2, 1), { 1, 3, 2, 4, 1, 3, 2, 4 }, 'repeatTensor of a non-contiguous matrix')
local ok, err = pcall(function() return m:repeatTensor(2) end)
assert(not ok and err:find('repeatTensor'), tostring(err))

-- expandAs/viewAs take a template tensor.
local col = torch.Tensor({ { 1 }, { 2 } })
local e = col:expandAs(torch.Tensor(2, 3))
assert(e:size(2) == 3 and e:stride(2) == 0, 'expandAs')
same(e, { 1, 1, 1, 2, 2, 2 }, 'expandAs values')
same(torch.range and torch.Tensor({ 1, 2, 3, 4 }):viewAs(m), { 1, 2, 3, 4 }, 'viewAs')
assert(torch.Tensor({ 1, 2, 3, 4 }):viewAs(m):dim() == 2, 'viewAs shape')

-- totable on 1-D, 2-D and empty tensors.
local t = m:totable()
assert(#t == 2 and t[1][1] == 1 and t[2][2] == 4, 'totable 2-D')
assert(#torch.Tensor():totable() == 0, 'totable of an empty tensor')
-- Views: transposed, narrowed, 3-D, and integer types keep their values.
local tt = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }):t():totable()
assert(#tt == 3 and #tt[1] == 2 and tt[1][2] == 4 and tt[3][1] == 3, 'totable of a transposed view')
local nt = torch.range(1, 10):narrow(1, 4, 3):totable()
assert(#nt == 3 and nt[1] == 4 and nt[3] == 6, 'totable of a narrowed view')
local t3 = torch.range(1, 8):view(2, 2, 2):totable()
assert(t3[2][1][2] == 6, 'totable 3-D')
assert(torch.LongTensor({ 2 ^ 40, -3 }):totable()[1] == 2 ^ 40, 'totable of a LongTensor')
assert(torch.ByteTensor({ 255 }):totable()[1] == 255, 'totable of a ByteTensor')

-- Type conversions: same object when the type matches, a copy otherwise.
local f = torch.FloatTensor({ 1.5, -2 })
assert(f:float() == f and f:type('torch.FloatTensor') == f, 'same type returns self')
local l = f:long()
assert(torch.typename(l) == 'torch.LongTensor', 'long')
same(l, { 1, -2 }, 'long truncates')
assert(f:type() == 'torch.FloatTensor', 'type() names the type')
assert(torch.typename(f:typeAs(torch.IntTensor())) == 'torch.IntTensor', 'typeAs')
local ok2, err2 = pcall(function() return f:type('torch.NoSuchTensor') end)
assert(not ok2 and err2:find('unknown tensor type'), tostring(err2))
print('ok')
