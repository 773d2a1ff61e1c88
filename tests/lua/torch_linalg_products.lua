-- mm, mv, ger, bmm and their add* forms against hand-computed products, for every argument form,
-- on contiguous, transposed, narrowed, strided and expanded operands, written into results of
-- every layout, for both float types (OpenBLAS) and integer types (the plain loops).

local H = dofile('torch_linalg_helpers.lua')

local A = { { 1, 2, 3 }, { 4, 5, 6 } }
local B = { { 7, 8 }, { 9, 10 }, { 11, 12 } }
local AB = { { 58, 64 }, { 139, 154 } }
local ONES = { { 1, 1 }, { 1, 1 } }
-- 3*ONES + 2*AB, 1 + AB, 1 + 2AB, 3 + AB
local B3A2 = { { 119, 131 }, { 281, 311 } }
local P1 = { { 59, 65 }, { 140, 155 } }
local P1A2 = { { 117, 129 }, { 279, 309 } }
local B3 = { { 61, 67 }, { 142, 157 } }

for _, T in ipairs(H.linalg_types) do
   local tname = 'torch.' .. T .. 'Tensor'
   local function M() return H.T(T, ONES) end

   -- mm: every operand layout times every operand layout, into every result layout.
   local la, lb = H.layouts(T, A), H.layouts(T, B)
   for an, a in pairs(la) do
      for bn, b in pairs(lb) do
         local what = T .. ' mm ' .. an .. ' x ' .. bn
         H.matches(torch.mm(a, b), T, AB, what)
         for rn, r in pairs(H.targets(T, 2, 2)) do
            if not rn:find('parent') then
               local back = torch.mm(r, a, b)
               H.check(rawequal(back, r), what .. ' into ' .. rn .. ' returns res')
               H.matches(r, T, AB, what .. ' into ' .. rn)
               local again = r:mm(a, b)
               H.check(rawequal(again, r), what .. ' res:mm returns res')
               H.matches(r, T, AB, what .. ' res:mm into ' .. rn)
            end
         end
      end
   end
   local t = H.targets(T, 2, 2)
   torch.mm(t.narrowed, la.transposed, lb.strided)
   H.untouched(t.narrowed_parent, 2, 2, T .. ' mm narrowed result')
   -- An operand with identical rows, as a stride-0 expansion.
   local rowA = H.layouts(T, { { 1, 2, 3 }, { 1, 2, 3 } })
   H.matches(torch.mm(rowA.expanded, lb.transposed), T, { { 58, 64 }, { 58, 64 } }, T .. ' mm expanded')
   -- res:mm(res, b) reads the old res.
   local sq = H.T(T, { { 1, 2 }, { 3, 4 } })
   sq:mm(sq, H.T(T, { { 1, 1 }, { 0, 1 } }))
   H.matches(sq, T, { { 1, 3 }, { 3, 7 } }, T .. ' res:mm(res, b)')

   -- addmm: every form of Torch's declaration.
   local a, b = la.transposed, lb.narrowed
   local m = M()
   H.matches(torch.addmm(m, a, b), T, P1, T .. ' torch.addmm(M, a, b)')
   H.matches(m, T, ONES, T .. ' torch.addmm leaves M')
   H.matches(torch.addmm(3, m, a, b), T, B3, T .. ' torch.addmm(beta, M, a, b)')
   H.matches(torch.addmm(m, 2, a, b), T, P1A2, T .. ' torch.addmm(M, alpha, a, b)')
   H.matches(torch.addmm(3, m, 2, a, b), T, B3A2, T .. ' torch.addmm(beta, M, alpha, a, b)')
   for rn, r in pairs(H.targets(T, 2, 2)) do
      if not rn:find('parent') then
         H.check(rawequal(torch.addmm(r, m, a, b), r), T .. ' torch.addmm(res, ...) returns res')
         H.matches(r, T, P1, T .. ' torch.addmm(res, M, a, b) into ' .. rn)
         torch.addmm(r, 3, m, 2, a, b)
         H.matches(r, T, B3A2, T .. ' torch.addmm(res, beta, M, alpha, a, b) into ' .. rn)
         H.check(rawequal(r:addmm(m, a, b), r), T .. ' res:addmm returns res')
         H.matches(r, T, P1, T .. ' res:addmm(M, a, b) into ' .. rn)
         r:addmm(m, 2, a, b)
         H.matches(r, T, P1A2, T .. ' res:addmm(M, alpha, a, b) into ' .. rn)
         r:addmm(3, m, 2, a, b)
         H.matches(r, T, B3A2, T .. ' res:addmm(beta, M, alpha, a, b) into ' .. rn)
         -- M omitted: res itself is added.
         r:copy(m)
         r:addmm(a, b)
         H.matches(r, T, P1, T .. ' res:addmm(a, b) into ' .. rn)
         r:copy(m)
         r:addmm(2, a, b)
         H.matches(r, T, P1A2, T .. ' res:addmm(alpha, a, b) (one number is alpha) into ' .. rn)
         r:copy(m)
         r:addmm(3, 2, a, b)
         H.matches(r, T, B3A2, T .. ' res:addmm(beta, alpha, a, b) into ' .. rn)
         r:copy(m)
         torch.addmm(r, r, a, b)
         H.matches(r, T, P1, T .. ' torch.addmm(res, res, a, b) into ' .. rn)
      end
   end
   local t = H.targets(T, 2, 2)
   torch.addmm(t.narrowed, 3, m, 2, a, b)
   H.untouched(t.narrowed_parent, 2, 2, T .. ' addmm narrowed result')
   -- beta = 0 ignores M, even its NaNs.
   if T == 'Double' or T == 'Float' then
      local nan = M():fill(0 / 0)
      H.matches(torch.addmm(0, nan, 1, a, b), T, AB, T .. ' addmm beta=0 ignores NaN in M')
      local r = M():fill(0 / 0)
      r:addmm(0, 1, a, b)
      H.matches(r, T, AB, T .. ' res:addmm(0, 1, a, b) ignores NaN in res')
   else
      -- Integer types cast beta to the type: 0.5 becomes 0.
      H.matches(torch.addmm(0.5, m, 1, a, b), T, AB, T .. ' integer beta 0.5 is 0')
   end

   -- mv and addmv.
   local v = { 1, 2, 3 }
   local Av = { 14, 32 }
   local lv = {
      contiguous = H.T(T, v),
      strided = H.T(T, { { 1, 9 }, { 2, 9 }, { 3, 9 } }):select(2, 1),
      narrowed = H.T(T, { 0, 1, 2, 3, 0 }):narrow(1, 2, 3),
   }
   for an, a in pairs(la) do
      for vn, x in pairs(lv) do
         local what = T .. ' mv ' .. an .. ' x ' .. vn
         H.matches(torch.mv(a, x), T, Av, what)
         local r = H.T(T, { 0, 0, 0, 0 }):narrow(1, 2, 2)
         H.check(rawequal(r:mv(a, x), r), what .. ' res:mv returns res')
         H.matches(r, T, Av, what .. ' res:mv')
         local r2 = H.T(T, { { 0, -1 }, { 0, -1 } }):select(2, 1)
         torch.mv(r2, a, x)
         H.matches(r2, T, Av, what .. ' torch.mv(strided res)')
         H.matches(torch.addmv(H.T(T, { 1, 1 }), a, x), T, { 15, 33 }, what .. ' torch.addmv(M, a, x)')
         H.matches(torch.addmv(3, H.T(T, { 1, 1 }), 2, a, x), T, { 31, 67 }, what .. ' torch.addmv(beta, M, alpha, a, x)')
         local y = H.T(T, { 1, 2 })
         y:addmv(a, x)
         H.matches(y, T, { 15, 34 }, what .. ' y:addmv(a, x)')
         y:addmv(2, 3, a, x)
         H.matches(y, T, { 72, 164 }, what .. ' y:addmv(beta, alpha, a, x)')
         y:addmv(H.T(T, { 1, 1 }), 2, a, x)
         H.matches(y, T, { 29, 65 }, what .. ' y:addmv(M, alpha, a, x)')
      end
   end
   H.matches(torch.mv(la.contiguous, H.T(T, { 2 }):expand(3)), T, { 12, 30 }, T .. ' mv expanded vector')
   H.matches(torch.addmv(0, H.T(T, { 5, 5 }), 1, la.strided, lv.strided), T, Av, T .. ' addmv beta 0')

   -- ger and addr.
   local x, y = H.T(T, { 1, 2 }), H.T(T, { { 3, 0 }, { 4, 0 }, { 5, 0 } }):select(2, 1)
   local XY = { { 3, 4, 5 }, { 6, 8, 10 } }
   H.matches(torch.ger(x, y), T, XY, T .. ' torch.ger')
   for rn, r in pairs(H.targets(T, 2, 3)) do
      if not rn:find('parent') then
         H.check(rawequal(r:ger(x, y), r), T .. ' res:ger returns res')
         H.matches(r, T, XY, T .. ' res:ger into ' .. rn)
         H.check(rawequal(torch.ger(r, x, y), r), T .. ' torch.ger(res, x, y) returns res')
         H.matches(r, T, XY, T .. ' torch.ger(res, x, y) into ' .. rn)
         local ones = H.T(T, { { 1, 1, 1 }, { 1, 1, 1 } })
         torch.addr(r, ones, x, y)
         H.matches(r, T, { { 4, 5, 6 }, { 7, 9, 11 } }, T .. ' torch.addr(res, M, x, y) into ' .. rn)
         torch.addr(r, 3, ones, 2, x, y)
         H.matches(r, T, { { 9, 11, 13 }, { 15, 19, 23 } }, T .. ' torch.addr(res, beta, M, alpha, x, y) into ' .. rn)
         r:addr(x, y)
         H.matches(r, T, { { 12, 15, 18 }, { 21, 27, 33 } }, T .. ' res:addr(x, y) into ' .. rn)
         r:addr(0, 1, x, y)
         H.matches(r, T, XY, T .. ' res:addr(0, 1, x, y) into ' .. rn)
         r:addr(2, x, y)
         H.matches(r, T, { { 9, 12, 15 }, { 18, 24, 30 } }, T .. ' res:addr(alpha, x, y) into ' .. rn)
      end
   end
   H.matches(torch.addr(H.T(T, { { 1, 1, 1 }, { 1, 1, 1 } }), 2, x, y), T,
      { { 7, 9, 11 }, { 13, 17, 21 } }, T .. ' torch.addr(M, alpha, x, y)')
   H.matches(torch.ger(y:narrow(1, 1, 2), x), T, { { 3, 6 }, { 4, 8 } }, T .. ' ger of narrowed vectors')
   H.matches(torch.ger(H.T(T, { 2 }):expand(2), y), T, { { 6, 8, 10 }, { 6, 8, 10 } }, T .. ' ger expanded')
   local t = H.targets(T, 2, 3)
   torch.ger(t.narrowed, x, y)
   H.untouched(t.narrowed_parent, 2, 3, T .. ' ger narrowed result')

   -- bmm, baddbmm, addbmm: batch 2 is {{1,0,0},{0,1,0}} * B = the first two rows of B.
   local A2 = { { 1, 0, 0 }, { 0, 1, 0 } }
   local b1 = H.T(T, { A, A2 })
   local b2 = H.T(T, { B, B })
   local b1t = H.T(T, { { { 1, 4 }, { 2, 5 }, { 3, 6 } }, { { 1, 0 }, { 0, 1 }, { 0, 0 } } }):transpose(2, 3)
   local b2n = torch[T .. 'Tensor'](3, 3, 4):fill(-3):narrow(1, 2, 2):narrow(3, 2, 2):copy(b2)
   local BMM = { AB, { { 7, 8 }, { 9, 10 } } }
   for _, p in ipairs { { b1, b2 }, { b1t, b2 }, { b1, b2n }, { b1t, b2n } } do
      H.matches(torch.bmm(p[1], p[2]), T, BMM, T .. ' torch.bmm')
      local r = torch[T .. 'Tensor']()
      H.check(rawequal(r:bmm(p[1], p[2]), r), T .. ' res:bmm returns res')
      H.matches(r, T, BMM, T .. ' res:bmm')
      local rt = torch[T .. 'Tensor'](2, 2, 2):transpose(2, 3)
      torch.bmm(rt, p[1], p[2])
      H.matches(rt, T, BMM, T .. ' torch.bmm into transposed res')
      local M3 = H.T(T, { ONES, ONES })
      H.matches(torch.baddbmm(M3, p[1], p[2]), T, { P1, { { 8, 9 }, { 10, 11 } } }, T .. ' torch.baddbmm(M, ...)')
      H.matches(torch.baddbmm(3, M3, 2, p[1], p[2]), T, { B3A2, { { 17, 19 }, { 21, 23 } } },
         T .. ' torch.baddbmm(beta, M, alpha, ...)')
      local r3 = H.T(T, { ONES, ONES })
      r3:baddbmm(p[1], p[2])
      H.matches(r3, T, { P1, { { 8, 9 }, { 10, 11 } } }, T .. ' res:baddbmm(b1, b2)')
      r3:baddbmm(0, 1, p[1], p[2])
      H.matches(r3, T, BMM, T .. ' res:baddbmm(0, 1, b1, b2)')
      -- addbmm sums the batch products: AB + {{7,8},{9,10}}.
      H.matches(torch.addbmm(M(), p[1], p[2]), T, { { 66, 73 }, { 149, 165 } }, T .. ' torch.addbmm(M, ...)')
      H.matches(torch.addbmm(3, M(), 2, p[1], p[2]), T, { { 133, 147 }, { 299, 331 } }, T .. ' torch.addbmm(beta, M, alpha, ...)')
      local r2 = M()
      H.check(rawequal(r2:addbmm(p[1], p[2]), r2), T .. ' res:addbmm returns res')
      H.matches(r2, T, { { 66, 73 }, { 149, 165 } }, T .. ' res:addbmm(b1, b2)')
      local r4 = torch[T .. 'Tensor']()
      torch.addbmm(r4, 0, M(), 1, p[1], p[2])
      H.matches(r4, T, { { 65, 72 }, { 148, 164 } }, T .. ' torch.addbmm(res, 0, M, 1, ...)')
   end
end

-- Integer arithmetic wraps as in Torch's C: 16*16 in a byte is 0, 200*2+3 is 147.
H.matches(torch.mm(torch.ByteTensor({ { 16 } }), torch.ByteTensor({ { 16 } })), 'Byte', { { 0 } }, 'Byte mm wraps')
H.matches(torch.mv(torch.ByteTensor({ { 200, 1 } }), torch.ByteTensor({ 2, 3 })), 'Byte', { 147 }, 'Byte mv wraps')
H.matches(torch.mm(torch.CharTensor({ { -2, 3 } }), torch.CharTensor({ { 4 }, { -5 } })), 'Char', { { -23 } }, 'Char mm')
H.matches(torch.mm(torch.ShortTensor({ { 300 } }), torch.ShortTensor({ { 300 } })), 'Short', { { 24464 } }, 'Short mm wraps')

-- Larger odd-sized products (through OpenBLAS's blocked kernels) against a Lua triple loop;
-- small integer values keep every result exact in float and double.
for _, T in ipairs { 'Double', 'Float', 'Int' } do
   local m, k, n = 37, 53, 29
   local a = torch[T .. 'Tensor'](k, m)
   local b = torch[T .. 'Tensor'](k, n)
   for i = 1, k do
      for j = 1, m do a[i][j] = (i * 7 + j * 3) % 11 - 5 end
      for j = 1, n do b[i][j] = (i * 5 + j * 2) % 13 - 6 end
   end
   local at = a:t() -- m x k, transposed
   local want = {}
   for i = 1, m do
      want[i] = {}
      for j = 1, n do
         local s = 0
         for p = 1, k do s = s + at[i][p] * b[p][j] end
         want[i][j] = s
      end
   end
   H.matches(torch.mm(at, b), T, want, T .. ' 37x53x29 product')
   local r = torch[T .. 'Tensor'](n, m):t()
   r:mm(at:clone(), b)
   H.matches(r, T, want, T .. ' 37x53x29 product into a transposed result')
   local col = b:select(2, 4)
   local wantv = {}
   for i = 1, m do wantv[i] = want[i][4] end
   H.matches(torch.mv(at, col), T, wantv, T .. ' 37x53 mv with a strided vector')
end

-- Dimensions of size 0 (narrowed to nothing): an empty inner dimension gives zeros, an empty
-- batch leaves beta*M.
for _, T in ipairs { 'Double', 'Float', 'Int' } do
   local z20 = torch[T .. 'Tensor'](2, 3):narrow(2, 1, 0)
   local z03 = torch[T .. 'Tensor'](2, 3):narrow(1, 1, 0)
   H.matches(torch.mm(z20, z03), T, { { 0, 0, 0 }, { 0, 0, 0 } }, T .. ' mm over an empty inner dimension')
   H.matches(torch.addmm(2, H.T(T, { { 1, 2 }, { 3, 4 } }), z20:narrow(1, 1, 2), z03:narrow(2, 1, 2)), T,
      { { 2, 4 }, { 6, 8 } }, T .. ' addmm over an empty inner dimension scales M')
   H.matches(torch.mv(z20, torch[T .. 'Tensor'](3):narrow(1, 1, 0)), T, { 0, 0 }, T .. ' mv of an empty row')
   local e1, e2 = torch[T .. 'Tensor'](1, 2, 3):narrow(1, 1, 0), torch[T .. 'Tensor'](1, 3, 2):narrow(1, 1, 0)
   H.eq(torch.bmm(e1, e2):size(1), 0, T .. ' bmm of no batch')
   H.matches(torch.addbmm(H.T(T, { { 3, 3 }, { 3, 3 } }), 2, e1, e2), T, { { 3, 3 }, { 3, 3 } }, T .. ' addbmm of no batch')
   H.matches(torch.addbmm(0, H.T(T, { { 3, 3 }, { 3, 3 } }), 2, e1, e2), T, { { 0, 0 }, { 0, 0 } },
      T .. ' addbmm of no batch, beta 0')
   H.eq(torch.trace(z03), 0, T .. ' trace of an empty matrix')
   H.eq(torch.dot(z20, z03), 0, T .. ' dot of empty matrices')
end

print('ok')
