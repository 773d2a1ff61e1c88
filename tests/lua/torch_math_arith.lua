-- add, csub, mul, div, cmul, cdiv, addcmul, addcdiv: every calling form, integer semantics,
-- strided views, aliasing, result resizing and the errors.
local H = dofile('torch_test_helpers.lua')
local same, fails, is = H.same, H.fails, H.is

---------------------------------------------------------------------------------------------------
-- add: x:add(v), x:add(y), x:add(v, y), res:add(x, y), res:add(x, v, y), torch.add(...)
do
   local x = torch.Tensor({ 1, 2, 3 })
   local y = torch.Tensor({ 1, 1, 2 })
   assert(is(x:add(10), x))
   same(x, { 11, 12, 13 })
   assert(is(x:add(y), x))
   same(x, { 12, 13, 15 })
   x:add(2, y)
   same(x, { 14, 15, 19 })
   local res = torch.Tensor()
   assert(is(res:add(x, y), res))
   same(res, { 15, 16, 21 })
   same(x, { 14, 15, 19 })
   same(y, { 1, 1, 2 })
   res:add(x, -1, y)
   same(res, { 13, 14, 17 })
   res:add(y, 5) -- res = y + 5
   same(res, { 6, 6, 7 })

   local n = torch.add(y, 1)
   assert(not is(n, y))
   same(n, { 2, 2, 3 }, 'torch.DoubleTensor')
   same(y, { 1, 1, 2 })
   same(torch.add(x, y), { 15, 16, 21 })
   same(torch.add(x, 2, y), { 16, 17, 23 })
   local out = torch.Tensor(7)
   assert(is(torch.add(out, x, y), out))
   same(out, { 15, 16, 21 })
   assert(is(torch.add(out, x, 3, y), out))
   same(out, { 17, 18, 25 })
   assert(is(torch.add(out, x, 1), out))
   same(out, { 15, 16, 20 })
   same(x, { 14, 15, 19 })

   -- x:add(y, z): x becomes y + z, resized to y's shape.
   local big = torch.Tensor(5):fill(9)
   big:add(torch.Tensor({ 1, 2 }), torch.Tensor({ 10, 20 }))
   same(big, { 11, 22 })
end

-- csub (sub is the view method `sub`, as in Torch)
do
   local x = torch.Tensor({ 5, 6, 7 })
   assert(is(x:csub(1), x))
   same(x, { 4, 5, 6 })
   x:csub(torch.Tensor({ 1, 2, 3 }))
   same(x, { 3, 3, 3 })
   x:csub(2, torch.Tensor({ 1, 1, 1 }))
   same(x, { 1, 1, 1 })
   local res = torch.Tensor()
   same(res:csub(torch.Tensor({ 10, 20, 30 }), torch.Tensor({ 1, 2, 3 })), { 9, 18, 27 })
   same(res:csub(torch.Tensor({ 10, 20, 30 }), 2, torch.Tensor({ 1, 2, 3 })), { 8, 16, 24 })
   same(res:csub(torch.Tensor({ 10, 20 }), 4), { 6, 16 })
   same(torch.csub(torch.Tensor({ 1, 2 }), 1), { 0, 1 })
   same(torch.csub(torch.Tensor({ 1, 2 }), torch.Tensor({ 2, 2 })), { -1, 0 })
   same(torch.csub(torch.Tensor({ 1, 2 }), 3, torch.Tensor({ 2, 2 })), { -5, -4 })
end

-- mul and div
do
   local x = torch.Tensor({ 1, 2, 3 })
   assert(is(x:mul(2), x))
   same(x, { 2, 4, 6 })
   local res = torch.Tensor()
   assert(is(res:mul(x, 0.5), res))
   same(res, { 1, 2, 3 })
   same(torch.mul(x, -1), { -2, -4, -6 })
   same(x, { 2, 4, 6 })
   assert(is(x:div(4), x))
   same(x, { 0.5, 1, 1.5 })
   same(torch.div(x, 0.5), { 1, 2, 3 })
   same(res:div(x, 2), { 0.25, 0.5, 0.75 })
   local z = torch.Tensor({ 1, -1, 0 }):div(0)
   assert(z[1] == math.huge and z[2] == -math.huge and z[3] ~= z[3])
end

-- cmul and cdiv
do
   local a, b = torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 4, 5, 6 })
   assert(is(a:cmul(b), a))
   same(a, { 4, 10, 18 })
   local res = torch.Tensor()
   assert(is(res:cmul(a, b), res))
   same(res, { 16, 50, 108 })
   same(torch.cmul(b, b), { 16, 25, 36 })
   assert(is(a:cdiv(b), a))
   same(a, { 1, 2, 3 })
   same(torch.cdiv(b, torch.Tensor({ 2, 2, 4 })), { 2, 2.5, 1.5 })
   same(res:cdiv(b, a), { 4, 2.5, 2 })
   same(torch.cmul(res, a, b), { 4, 10, 18 })
end

-- addcmul and addcdiv
do
   local a = torch.Tensor({ 1, 1, 1 })
   local t1, t2 = torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 2, 2, 2 })
   assert(is(a:addcmul(t1, t2), a))
   same(a, { 3, 5, 7 })
   a:addcmul(0.5, t1, t2)
   same(a, { 4, 7, 10 })
   local res = torch.Tensor()
   assert(is(res:addcmul(a, t1, t2), res))
   same(res, { 6, 11, 16 })
   same(a, { 4, 7, 10 })
   same(res:addcmul(a, -1, t1, t2), { 2, 3, 4 })
   same(torch.addcmul(a, t1, t2), { 6, 11, 16 })
   same(torch.addcmul(a, 2, t1, t2), { 8, 15, 22 })
   assert(is(torch.addcmul(res, a, t1, t2), res))
   same(res, { 6, 11, 16 })
   same(torch.addcmul(res, a, 3, t1, t2), { 10, 19, 28 })

   a:addcdiv(t1, t2)
   same(a, { 4.5, 8, 11.5 })
   a:addcdiv(2, t1, t2)
   same(a, { 5.5, 10, 14.5 })
   same(torch.addcdiv(a, t1, t2), { 6, 11, 16 })
   same(torch.addcdiv(a, 4, t1, t2), { 7.5, 14, 20.5 })
   same(res:addcdiv(a, -2, t1, t2), { 4.5, 8, 11.5 })
   same(torch.addcdiv(res, a, t1, t2), { 6, 11, 16 })
end

---------------------------------------------------------------------------------------------------
-- Float: the same arithmetic in single precision.
do
   local x = torch.FloatTensor({ 1, 2, 3 })
   same(x:add(0.5), { 1.5, 2.5, 3.5 }, 'torch.FloatTensor')
   same(torch.cmul(x, x), { 2.25, 6.25, 12.25 }, 'torch.FloatTensor')
   same(torch.div(x, 2), { 0.75, 1.25, 1.75 }, 'torch.FloatTensor')
   same(torch.addcdiv(x, x, torch.FloatTensor({ 2, 2, 2 })), { 2.25, 3.75, 5.25 }, 'torch.FloatTensor')
   -- The number is converted to float before the operation, and the sum is rounded to float.
   local f = torch.FloatTensor({ 0.1 }):add(0.2)[1]
   assert(f == H.float(H.float(0.1) + H.float(0.2)), f)
   assert(f ~= 0.1 + 0.2)
end

---------------------------------------------------------------------------------------------------
-- Integer types: C semantics.
for _, T in ipairs(H.ints) do
   local name = 'torch.' .. T .. 'Tensor'
   local new = torch[T .. 'Tensor']
   local x = new({ 1, 2, 3 })
   same(x:add(1), { 2, 3, 4 }, name)
   same(x:cmul(new({ 2, 2, 2 })), { 4, 6, 8 }, name)
   same(torch.div(x, 3), { 1, 2, 2 }, name)
   same(torch.cdiv(x, new({ 3, 4, 5 })), { 1, 1, 1 }, name)
   same(torch.csub(x, new({ 1, 1, 1 })), { 3, 5, 7 }, name)
   same(torch.addcmul(x, x, new({ 1, 1, 1 })), { 8, 12, 16 }, name)
   same(torch.addcdiv(x, 2, x, new({ 4, 4, 4 })), { 6, 9, 12 }, name)
   same(torch.mul(x, 2.9), { 8, 12, 16 }, name) -- 2.9 becomes 2
   same(x, { 4, 6, 8 }, name)
end
do
   -- Division truncates toward zero.
   same(torch.IntTensor({ 7, -7, 6 }):div(2), { 3, -3, 3 }, 'torch.IntTensor')
   same(torch.LongTensor({ 7, -7 }):cdiv(torch.LongTensor({ -2, 2 })), { -3, -3 }, 'torch.LongTensor')
   same(torch.IntTensor({ 10 }):addcdiv(torch.IntTensor({ 7 }), torch.IntTensor({ 2 })), { 13 })
   -- Numbers convert as a C cast: truncation, then wrapping for the narrow types.
   same(torch.IntTensor({ 1, 2 }):add(2.9), { 3, 4 })
   same(torch.IntTensor({ 1, 2 }):add(-2.9), { -1, 0 })
   same(torch.IntTensor({ 10 }):div(2.5), { 5 })
   same(torch.ByteTensor({ 1, 2 }):add(-1), { 0, 1 })
   same(torch.ByteTensor({ 3 }):csub(5), { 254 })
   -- Overflow wraps.
   same(torch.ByteTensor({ 250, 5 }):add(10), { 4, 15 })
   same(torch.CharTensor({ 127, -128 }):add(1), { -128, -127 })
   same(torch.ShortTensor({ 200 }):mul(200), { -25536 })
   same(torch.IntTensor({ 2147483647 }):add(1), { -2147483648 })
   same(torch.LongTensor({ 2 ^ 40 }):mul(4), { 2 ^ 42 })
   -- Integer division by zero is an error (C would trap), raised before anything changes.
   local i = torch.IntTensor({ 1, 2 })
   fails('div: division by zero', function() i:div(0) end)
   fails('div: division by zero', function() i:div(0.5) end)
   fails('cdiv: division by zero', function() i:cdiv(torch.IntTensor({ 1, 0 })) end)
   fails('addcdiv: division by zero',
      function() i:addcdiv(torch.IntTensor({ 1, 1 }), torch.IntTensor({ 0, 1 })) end)
   same(i, { 1, 2 })
end

---------------------------------------------------------------------------------------------------
-- Strided views as inputs and as results.
do
   local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
   local mt = m:t()
   same(torch.add(mt, m), { { 2, 5 }, { 5, 8 } })
   same(torch.cmul(mt, mt), { { 1, 9 }, { 4, 16 } })
   local r = torch.zeros(2, 2)
   local rt = r:t()
   assert(is(rt:add(m, 10), rt))
   assert(rt:stride(1) == 1) -- a result of the right size keeps its strides
   same(rt, { { 11, 12 }, { 13, 14 } })
   same(r, { { 11, 13 }, { 12, 14 } })

   local x = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
   local cols = x:narrow(2, 2, 2)
   cols:mul(10)
   same(x, { { 1, 20, 30 }, { 4, 50, 60 } })
   same(torch.add(cols, x:narrow(2, 1, 2)), { { 21, 50 }, { 54, 110 } })
   x:select(2, 1):add(torch.Tensor({ 1, 1 }))
   same(x, { { 2, 20, 30 }, { 5, 50, 60 } })
   x:select(1, 2):addcmul(2, torch.Tensor({ 1, 1, 1 }), torch.Tensor({ 1, 2, 3 }))
   same(x, { { 2, 20, 30 }, { 7, 54, 66 } })

   -- Same number of elements, different shapes: elements pair up in logical order.
   same(torch.add(mt, torch.Tensor({ 10, 20, 30, 40 })), { { 11, 23 }, { 32, 44 } })
   local y = torch.Tensor({ 1, 2, 3, 4 })
   y:add(torch.Tensor({ { 1, 2 }, { 3, 4 } }):t())
   same(y, { 2, 5, 5, 8 })

   -- A 3-D permuted view against a contiguous computation and against the elements themselves.
   local base = H.seq('Float', 60, 70)
   local big = base:view(6, 10, 70):transpose(1, 3)
   assert(not big:isContiguous())
   local other = H.seq('Float', 70, 60):view(70, 10, 6)
   local got = torch.add(big, 0.5, other)
   assert(torch.equal(got, big:clone():add(0.5, other:clone())))
   for i = 1, 70, 7 do
      for j = 1, 10, 3 do
         for k = 1, 6 do
            assert(got[i][j][k] == big[i][j][k] + 0.5 * other[i][j][k])
         end
      end
   end
   local prod = torch.FloatTensor()
   prod:cmul(big, big:clone())
   assert(torch.equal(prod, big:clone():cmul(big:clone())))
   local acc = big:clone()
   acc:addcmul(2, big, other)
   assert(acc[3][4][5] == big[3][4][5] + 2 * big[3][4][5] * other[3][4][5])
end

---------------------------------------------------------------------------------------------------
-- Aliasing: an operand may be the result.
do
   local x = torch.Tensor({ 1, 2, 3 })
   x:add(x)
   same(x, { 2, 4, 6 })
   x:cmul(x)
   same(x, { 4, 16, 36 })
   x:addcmul(x, x)
   same(x, { 20, 272, 1332 })
   local r = torch.Tensor({ 1, 2, 3 })
   r:add(r, r)
   same(r, { 2, 4, 6 })
   same(torch.add(r, 2, r), { 6, 12, 18 })
   r:csub(r)
   same(r, { 0, 0, 0 })
   local s = torch.Tensor({ 1, 2, 3 })
   s:cdiv(torch.Tensor({ 1, 1, 1 }), s)
   same(s, { 1, 0.5, 1 / 3 })
   -- Partly overlapping views are processed element by element in order, as in C.
   local v = torch.Tensor({ 1, 2, 3, 4, 5 })
   v:narrow(1, 2, 4):add(v:narrow(1, 1, 4))
   same(v, { 1, 3, 6, 10, 15 })
   local ones = torch.Tensor(101):fill(1)
   ones:narrow(1, 2, 100):add(ones:narrow(1, 1, 100))
   for i = 1, 101 do assert(ones[i] == i) end
end

---------------------------------------------------------------------------------------------------
-- Results are resized; empty tensors give empty results.
do
   local res = torch.Tensor(2, 5):fill(7)
   res:add(torch.Tensor({ 1, 2, 3 }), 1)
   same(res, { 2, 3, 4 })
   res:cmul(torch.Tensor({ { 1, 2 }, { 3, 4 } }), torch.Tensor({ { 1, 1 }, { 2, 2 } }))
   same(res, { { 1, 2 }, { 6, 8 } })
   assert(torch.add(torch.Tensor(), 1):dim() == 0)
   assert(torch.Tensor():add(torch.Tensor()):dim() == 0)
   assert(torch.cmul(torch.Tensor(), torch.Tensor()):dim() == 0)
   local e = torch.Tensor(3)
   e:mul(torch.Tensor(), 2)
   assert(e:dim() == 0)
end

---------------------------------------------------------------------------------------------------
-- Errors.
do
   fails('add: inconsistent tensor size: sizes 3 and 4 have 3 and 4 elements',
      function() torch.Tensor(3):add(torch.Tensor(4)) end)
   fails('cmul: inconsistent tensor size: sizes 2x2 and 5 have 4 and 5 elements',
      function() torch.Tensor(2, 2):cmul(torch.Tensor(5)) end)
   fails('addcmul: inconsistent tensor size: sizes 3 and 2 have 3 and 2 elements',
      function() torch.Tensor(3):addcmul(torch.Tensor(2), torch.Tensor(3)) end)
   fails('cdiv: inconsistent tensor size: sizes 2 and empty have 2 and 0 elements',
      function() torch.cdiv(torch.Tensor(2), torch.Tensor()) end)
   local x = torch.Tensor({ 1, 2 })
   pcall(x.add, x, torch.Tensor(3))
   same(x, { 1, 2 })

   local add_forms = '*DoubleTensor* [DoubleTensor] number | *DoubleTensor* [DoubleTensor] [number] DoubleTensor'
   fails('add: invalid arguments: DoubleTensor string\nexpected arguments: ' .. add_forms,
      function() torch.Tensor(2):add('x') end)
   fails('add: invalid arguments: DoubleTensor FloatTensor\nexpected arguments: ' .. add_forms,
      function() torch.Tensor(2):add(torch.FloatTensor(2)) end)
   fails('add: invalid arguments: DoubleTensor\nexpected arguments: ' .. add_forms,
      function() torch.Tensor(2):add() end)
   fails('add: invalid arguments: no arguments\nexpected arguments: [*DoubleTensor*] DoubleTensor number'
      .. ' | [*DoubleTensor*] DoubleTensor [number] DoubleTensor', function() torch.add() end)
   fails('add: invalid arguments: number number\nexpected arguments: [*DoubleTensor*] DoubleTensor number'
      .. ' | [*DoubleTensor*] DoubleTensor [number] DoubleTensor', function() torch.add(1, 2) end)
   fails('mul: invalid arguments: FloatTensor\nexpected arguments: [*FloatTensor*] FloatTensor number',
      function() torch.mul(torch.FloatTensor(2)) end)
   fails('cmul: invalid arguments: IntTensor number\nexpected arguments: *IntTensor* [IntTensor] IntTensor',
      function() torch.IntTensor(2):cmul(2) end)
   fails('addcmul: invalid arguments: DoubleTensor DoubleTensor\nexpected arguments: '
      .. '*DoubleTensor* [DoubleTensor] [number] DoubleTensor DoubleTensor',
      function() torch.Tensor(2):addcmul(torch.Tensor(2)) end)
   fails('add: bad argument #1 (tensor expected, got number)', function() torch.DoubleTensor.add(3, 4) end)
end

print('ok')
