-- The unary maths functions, pow (tensor^number, number^tensor, cpow), clamp, cmax/cmin,
-- fmod/remainder, atan2, lerp: forms, values, number forms and the integer-type rules.
local H = dofile('torch_test_helpers.lua')
local same, fails, is = H.same, H.fails, H.is

local function sigmoid(v) return 1 / (1 + math.exp(-v)) end

-- Each function in its three forms against Lua's maths (the same C library).
local cases = {
   { 'sqrt', math.sqrt, { 0.25, 0.5, 1, 2 } },
   { 'exp', math.exp, { -1, 0, 0.5, 2 } },
   { 'log', math.log, { 0.25, 1, 2, 10 } },
   { 'tanh', math.tanh, { -1, 0, 0.5, 2 } },
   { 'sinh', math.sinh, { -1, 0, 0.5, 2 } },
   { 'cosh', math.cosh, { -1, 0, 0.5, 2 } },
   { 'sin', math.sin, { -1, 0, 0.5, 2 } },
   { 'cos', math.cos, { -1, 0, 0.5, 2 } },
   { 'tan', math.tan, { -1, 0, 0.5, 2 } },
   { 'asin', math.asin, { -1, -0.5, 0, 0.5 } },
   { 'acos', math.acos, { -1, -0.5, 0, 0.5 } },
   { 'atan', math.atan, { -1, 0, 0.5, 2 } },
   { 'floor', math.floor, { -1.5, -0.5, 0.5, 2 } },
   { 'ceil', math.ceil, { -1.5, -0.5, 0.5, 2 } },
   { 'abs', math.abs, { -1.5, -0.5, 0, 2 } },
   { 'rsqrt', function(v) return 1 / math.sqrt(v) end, { 0.25, 0.5, 1, 4 } },
   { 'cinv', function(v) return 1 / v end, { -4, 0.5, 1, 3 } },
   { 'sigmoid', sigmoid, { -2, 0, 0.5, 3 } },
   { 'log1p', function(v) return math.log(1 + v) end, { 0, 0.5, 1, 3 } },
   { 'round', nil, { -2.5, -0.5, 0.5, 2.4 }, { -3, -1, 1, 2 } },
   { 'trunc', nil, { -2.7, -0.5, 0.5, 2.7 }, { -2, -0, 0, 2 } },
   { 'frac', nil, { -2.75, -0.5, 0.5, 2.25 }, { -0.75, -0.5, 0.5, 0.25 } },
   { 'sign', nil, { -3, 0, 2, 0 / 0 }, { -1, 0, 1, 0 } },
   { 'neg', nil, { -3, 0, 2, 0.5 }, { 3, 0, -2, -0.5 } },
}
for _, c in ipairs(cases) do
   local name, f, input, want = c[1], c[2], c[3], c[4]
   if not want then
      want = {}
      for i, v in ipairs(input) do want[i] = f(v) end
   end
   local tol = f and 1e-15 or nil
   local x = torch.Tensor(input)
   same(torch[name](x), want, 'torch.DoubleTensor', tol)
   same(x, input)
   local y = x:clone()
   assert(is(y[name](y), y))
   same(y, want, nil, tol)
   local r = torch.Tensor(9)
   assert(is(r[name](r, x), r))
   same(r, want, nil, tol)
   assert(is(torch[name](r, x), r))
   -- Float, on a transposed view.
   local fx = torch.FloatTensor({ input, input }):t()
   local fr = torch[name](fx)
   assert(torch.type(fr) == 'torch.FloatTensor')
   for i = 1, 4 do
      assert(fr[i][1] == fr[i][2])
      local ok = fr[i][1] == H.float(want[i]) or (fr[i][1] ~= fr[i][1] and want[i] ~= want[i])
         or math.abs(fr[i][1] - want[i]) <= 1e-6 * math.max(1, math.abs(want[i]))
      assert(ok, name .. ': float element ' .. i .. ' is ' .. fr[i][1] .. ', expected ' .. want[i])
   end
end

-- Correctly rounded functions give exactly the float result.
assert(torch.FloatTensor({ 2 }):sqrt()[1] == H.float(math.sqrt(2)))
assert(torch.Tensor({ 2 }):sqrt()[1] == math.sqrt(2))

-- The number forms of torch.f (Torch's scalar overloads).
assert(torch.sqrt(16) == 4)
assert(torch.abs(-2) == 2)
assert(torch.exp(0) == 1)
assert(torch.floor(-1.5) == -2)
assert(torch.round(2.5) == 3)
assert(torch.sigmoid(0) == 0.5)
assert(torch.atan2(1, 1) == math.atan2(1, 1))
assert(torch.pow(2, 10) == 1024)
assert(torch.lerp(1, 3, 0.25) == 1.5)

-- Maths functions are for Float and Double; abs, sign and neg also take integers.
for _, T in ipairs(H.ints) do
   local t = torch[T .. 'Tensor'](2)
   local msg = ': not supported for torch.' .. T .. 'Tensor (only torch.FloatTensor and torch.DoubleTensor)'
   for _, name in ipairs({ 'sqrt', 'rsqrt', 'exp', 'log', 'log1p', 'cinv', 'floor', 'ceil', 'round', 'trunc',
      'frac', 'tanh', 'sinh', 'cosh', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sigmoid' }) do
      fails(name .. msg, function() t[name](t) end)
      fails(name .. msg, function() torch[name](t) end)
   end
   fails('atan2' .. msg, function() torch.atan2(t, t) end)
   fails('lerp' .. msg, function() t:lerp(t, 0.5) end)
end
same(torch.IntTensor({ -3, 0, 4 }):abs(), { 3, 0, 4 }, 'torch.IntTensor')
same(torch.CharTensor({ -128, -1 }):abs(), { -128, 1 })
same(torch.ByteTensor({ 200 }):abs(), { 200 })
same(torch.LongTensor({ -5, 0, 7 }):sign(), { -1, 0, 1 })
same(torch.ByteTensor({ 0, 9 }):sign(), { 0, 1 })
same(torch.ShortTensor({ 5, -32768 }):neg(), { -5, -32768 })
same(torch.ByteTensor({ 1 }):neg(), { 255 })
same(torch.neg(torch.IntTensor({ 2 })), { -2 }, 'torch.IntTensor')

---------------------------------------------------------------------------------------------------
-- pow: [res,] tensor, number; [res,] number, tensor (number^tensor); cpow for tensor^tensor.
do
   local x = torch.Tensor({ 1, 2, 3 })
   same(torch.pow(x, 2), { 1, 4, 9 })
   same(torch.pow(2, x), { 2, 4, 8 })
   same(x, { 1, 2, 3 })
   local r = torch.Tensor()
   assert(is(r:pow(x, 3), r))
   same(r, { 1, 8, 27 })
   assert(is(r:pow(3, x), r))
   same(r, { 3, 9, 27 })
   assert(is(torch.pow(r, x, 2), r))
   same(r, { 1, 4, 9 })
   assert(is(torch.pow(r, 10, x), r))
   same(r, { 10, 100, 1000 })
   -- The manual's in-place number^tensor: torch.pow(x, n, x).
   local p = torch.Tensor({ 1, 2, 3 })
   assert(is(torch.pow(p, 2, p), p))
   same(p, { 2, 4, 8 })
   assert(is(x:pow(2), x))
   same(x, { 1, 4, 9 })
   x:pow(0.5)
   same(x, { 1, 2, 3 })
   -- Torch's shortcuts for common exponents give its exact results.
   local t = torch.Tensor({ 2, 4 })
   same(torch.pow(t, -1), { 0.5, 0.25 })
   same(torch.pow(t, -2), { 0.25, 0.0625 })
   same(torch.pow(t, -0.5), { 1 / math.sqrt(2), 0.5 })
   same(torch.pow(t, 0), { 1, 1 })
   same(torch.pow(t, 1), { 2, 4 })
   same(torch.pow(t, 1.5), { 2 ^ 1.5, 8 }, nil, 1e-15)
   assert(1 / torch.pow(torch.Tensor({ -0.0 }), 0.5)[1] == -math.huge) -- sqrt(-0) is -0
   local fp = torch.FloatTensor({ 2 }):pow(1.5)[1]
   assert(math.abs(fp - 2 ^ 1.5) < 1e-6 and fp == H.float(fp))
   -- Integer powers are exact integer arithmetic; negative powers truncate.
   same(torch.IntTensor({ 2, 3, -2 }):pow(3), { 8, 27, -8 }, 'torch.IntTensor')
   same(torch.IntTensor({ 2, 1, -1 }):pow(-1), { 0, 1, -1 })
   same(torch.LongTensor({ 3 }):pow(30), { 205891132094649 })
   same(torch.ByteTensor({ 2 }):pow(9), { 0 })
   same(torch.pow(2, torch.IntTensor({ 0, 1, 10 })), { 1, 2, 1024 }, 'torch.IntTensor')
   -- cpow
   local a = torch.Tensor({ 2, 3 })
   assert(is(a:cpow(torch.Tensor({ 3, 2 })), a))
   same(a, { 8, 9 })
   same(torch.cpow(torch.IntTensor({ 2, 5 }), torch.IntTensor({ 10, 2 })), { 1024, 25 }, 'torch.IntTensor')
   same(torch.Tensor():cpow(torch.Tensor({ 4, 9 }), torch.Tensor({ 0.5, 0.5 })), { 2, 3 })
   fails('pow: invalid arguments: DoubleTensor DoubleTensor\nexpected arguments: '
      .. '*DoubleTensor* [DoubleTensor] number | *DoubleTensor* number [DoubleTensor]',
      function() a:pow(a) end)
   fails('cpow: inconsistent tensor size: sizes 2 and 3 have 2 and 3 elements',
      function() a:cpow(torch.Tensor(3)) end)
end

---------------------------------------------------------------------------------------------------
-- clamp, cmax, cmin
do
   local x = torch.Tensor({ -2, 0.5, 3 })
   same(torch.clamp(x, 0, 1), { 0, 0.5, 1 })
   local r = torch.Tensor()
   assert(is(r:clamp(x, -1, 1), r))
   same(r, { -1, 0.5, 1 })
   assert(is(x:clamp(-1, 0), x))
   same(x, { -1, 0, 0 })
   same(torch.clamp(torch.IntTensor({ -5, 5, 50 }), 0, 10), { 0, 5, 10 }, 'torch.IntTensor')
   same(torch.ByteTensor({ 0, 3, 9 }):clamp(2, 5), { 2, 3, 5 })
   fails('clamp: invalid arguments: DoubleTensor number\nexpected arguments: *DoubleTensor* [DoubleTensor] number number',
      function() x:clamp(1) end)

   local a, b = torch.Tensor({ 1, 5, 3 }), torch.Tensor({ 4, 2, 3 })
   same(torch.cmax(a, b), { 4, 5, 3 })
   same(torch.cmin(a, b), { 1, 2, 3 })
   same(torch.cmax(a, 2), { 2, 5, 3 })
   same(torch.cmin(a, 2), { 1, 2, 2 })
   assert(is(r:cmax(a, b), r))
   same(r, { 4, 5, 3 })
   assert(is(r:cmin(a, 4), r))
   same(r, { 1, 4, 3 })
   local c = a:clone()
   assert(is(c:cmax(b), c))
   same(c, { 4, 5, 3 })
   c:cmin(3.5)
   same(c, { 3.5, 3.5, 3 })
   same(torch.cmax(torch.CharTensor({ -5, 5 }), 0), { 0, 5 }, 'torch.CharTensor')
   same(torch.cmin(torch.LongTensor({ -5, 5 }), torch.LongTensor({ 0, 0 })), { -5, 0 })
   fails('cmax: inconsistent tensor size: sizes 3 and 2 have 3 and 2 elements',
      function() a:cmax(torch.Tensor(2)) end)
end

---------------------------------------------------------------------------------------------------
-- fmod (the sign of the dividend, C's fmod) and remainder (the sign of the divisor)
do
   local x = torch.Tensor({ -7, -1.5, 7, 5.5 })
   same(torch.fmod(x, 2), { -1, -1.5, 1, 1.5 })
   same(torch.remainder(x, 2), { 1, 0.5, 1, 1.5 })
   same(torch.remainder(x, -2), { -1, -1.5, -1, -0.5 })
   same(torch.fmod(x, 0), { 0 / 0, 0 / 0, 0 / 0, 0 / 0 })
   same(torch.remainder(x, 0), { 0 / 0, 0 / 0, 0 / 0, 0 / 0 })
   local d = torch.Tensor({ 2, 2, -2, -2 })
   same(torch.cfmod(x, d), { -1, -1.5, 1, 1.5 })
   same(torch.cremainder(x, d), { 1, 0.5, -1, -0.5 })
   same(torch.fmod(x, d), { -1, -1.5, 1, 1.5 })
   same(torch.remainder(x, d), { 1, 0.5, -1, -0.5 })
   same(torch.cmod(x, d), { -1, -1.5, 1, 1.5 })
   same(x:clone():mod(2), { -1, -1.5, 1, 1.5 })
   local r = torch.Tensor()
   assert(is(r:fmod(x, 4), r))
   same(r, { -3, -1.5, 3, 1.5 })
   assert(is(r:cremainder(x, d), r))
   assert(is(x:remainder(2), x))
   same(x, { 1, 0.5, 1, 1.5 })
   same(torch.FloatTensor({ -7.5 }):fmod(2), { -1.5 }, 'torch.FloatTensor')

   local i = torch.IntTensor({ -7, 7, -6 })
   same(torch.fmod(i, 3), { -1, 1, 0 }, 'torch.IntTensor')
   same(torch.remainder(i, 3), { 2, 1, 0 })
   same(torch.remainder(i, -3), { -1, -2, 0 })
   same(torch.cremainder(i, torch.IntTensor({ 3, -3, 4 })), { 2, -2, 2 })
   same(torch.cfmod(i, torch.IntTensor({ 3, -3, 4 })), { -1, 1, -2 })
   same(torch.ByteTensor({ 7 }):remainder(3), { 1 })
   fails('fmod: division by zero', function() i:fmod(0) end)
   fails('remainder: division by zero', function() i:remainder(0) end)
   fails('cremainder: division by zero', function() i:cremainder(torch.IntTensor({ 1, 0, 1 })) end)
   same(i, { -7, 7, -6 })
end

---------------------------------------------------------------------------------------------------
-- atan2 (y = the source, x = the argument) and lerp
do
   local y, x = torch.Tensor({ 1, -1, 0 }), torch.Tensor({ 1, 1, -1 })
   same(torch.atan2(y, x), { math.atan2(1, 1), math.atan2(-1, 1), math.atan2(0, -1) })
   local r = torch.Tensor()
   assert(is(r:atan2(y, x), r))
   same(r, { math.atan2(1, 1), math.atan2(-1, 1), math.atan2(0, -1) })
   assert(is(y:atan2(x), y))
   same(y, { math.atan2(1, 1), math.atan2(-1, 1), math.atan2(0, -1) })
   same(torch.atan2(torch.FloatTensor({ 1 }), torch.FloatTensor({ 1 })), { H.float(math.atan2(1, 1)) })

   local a, b = torch.Tensor({ 0, 10 }), torch.Tensor({ 10, 20 })
   same(torch.lerp(a, b, 0.5), { 5, 15 })
   assert(is(r:lerp(a, b, 1), r))
   same(r, { 10, 20 })
   assert(is(a:lerp(b, 0.25), a))
   same(a, { 2.5, 12.5 })
   same(torch.lerp(torch.FloatTensor({ 1 }), torch.FloatTensor({ 2 }), 0.5), { 1.5 }, 'torch.FloatTensor')
   fails('lerp: inconsistent tensor size: sizes 2 and 3 have 2 and 3 elements',
      function() a:lerp(torch.Tensor(3), 0.5) end)
   fails('lerp: invalid arguments: DoubleTensor DoubleTensor\nexpected arguments: '
      .. '*DoubleTensor* [DoubleTensor] DoubleTensor number', function() a:lerp(b) end)
   fails('atan2: invalid arguments: DoubleTensor number\nexpected arguments: '
      .. '*DoubleTensor* [DoubleTensor] DoubleTensor', function() a:atan2(1) end)
end

print('ok')
