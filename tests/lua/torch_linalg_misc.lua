-- dot, trace, cross, diag, tril and triu against hand-computed values, in every argument form,
-- on contiguous, transposed, narrowed and expanded inputs, for float and integer types.

local H = dofile('torch_linalg_helpers.lua')

local A = { { 1, 2, 3 }, { 4, 5, 6 } }
local SQ = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }

for _, T in ipairs(H.linalg_types) do
   local la = H.layouts(T, A)

   -- dot: any shapes with the same number of elements, paired in logical order.
   local x, y = H.T(T, { 1, 2, 3 }), H.T(T, { 4, 5, 6 })
   H.eq(x:dot(y), 32, T .. ' x:dot(y)')
   H.eq(torch.dot(x, y), 32, T .. ' torch.dot')
   H.eq(type(x:dot(y)), 'number', T .. ' dot returns a number')
   for name, a in pairs(la) do
      H.eq(a:dot(a), 91, T .. ' dot of ' .. name .. ' matrices')
      H.eq(a:dot(la.contiguous), 91, T .. ' dot of ' .. name .. ' with contiguous')
   end
   local seq = H.T(T, { 1, 2, 3, 4, 5, 6 })
   H.eq(la.contiguous:dot(seq), 91, T .. ' dot of a matrix with a vector')
   -- A:t() reads 1,4,2,5,3,6.
   H.eq(la.transposed:t():dot(seq), 86, T .. ' dot of a transposed matrix with a vector')
   H.eq(H.T(T, { 2 }):expand(3):dot(x), 12, T .. ' dot of an expanded vector')
   H.eq(H.T(T, { { 1, 9 }, { 2, 9 }, { 3, 9 } }):select(2, 1):dot(y), 32, T .. ' dot of strided vectors')
   H.eq(torch[T .. 'Tensor']():dot(torch[T .. 'Tensor']()), 0, T .. ' dot of empty tensors')

   -- trace: the sum of the main diagonal, a number.
   H.eq(la.contiguous:trace(), 6, T .. ' trace of 2x3')
   H.eq(torch.trace(la.transposed), 6, T .. ' trace of transposed')
   H.eq(la.narrowed:t():trace(), 6, T .. ' trace of narrowed, transposed')
   H.eq(torch.trace(H.T(T, SQ)), 15, T .. ' trace of 3x3')
   H.eq(type(torch.trace(H.T(T, SQ))), 'number', T .. ' trace returns a number')

   -- cross: along the first dimension of size 3, or the one given.
   local c = torch.cross(x, y)
   H.matches(c, T, { -3, 6, -3 }, T .. ' torch.cross(a, b)')
   H.matches(x, T, { 1, 2, 3 }, T .. ' cross leaves a')
   H.matches(x:cross(y), T, { -3, 6, -3 }, T .. ' a:cross(b) returns a new tensor')
   H.matches(x, T, { 1, 2, 3 }, T .. ' a:cross(b) leaves a')
   local r = torch[T .. 'Tensor']()
   H.check(rawequal(torch.cross(r, x, y), r), T .. ' torch.cross(res, a, b) returns res')
   H.matches(r, T, { -3, 6, -3 }, T .. ' torch.cross(res, a, b)')
   H.check(rawequal(r:cross(y, x), r), T .. ' res:cross(a, b) returns res')
   H.matches(r, T, { 3, -6, 3 }, T .. ' res:cross(a, b)')
   local m1, m2 = H.T(T, { { 1, 2, 3 }, { 4, 5, 6 } }), H.T(T, { { 4, 5, 6 }, { 1, 2, 3 } })
   H.matches(torch.cross(m1, m2, 2), T, { { -3, 6, -3 }, { 3, -6, 3 } }, T .. ' cross of rows (dim 2)')
   H.matches(torch.cross(m1, m2), T, { { -3, 6, -3 }, { 3, -6, 3 } }, T .. ' cross finds dim 2')
   H.matches(torch.cross(m1:t(), m2:t()), T, { { -3, 3 }, { 6, -6 }, { -3, 3 } }, T .. ' cross of transposed (dim 1)')
   local wide = torch[T .. 'Tensor'](2, 5):fill(0)
   wide:narrow(2, 2, 3):copy(m1)
   H.matches(torch.cross(wide:narrow(2, 2, 3), m2, 2), T, { { -3, 6, -3 }, { 3, -6, 3 } }, T .. ' cross of narrowed')
   local rt = torch[T .. 'Tensor'](3, 2):t()
   torch.cross(rt, m1, m2, 2)
   H.matches(rt, T, { { -3, 6, -3 }, { 3, -6, 3 } }, T .. ' cross into a transposed result')
   local self = H.T(T, { 1, 2, 3 })
   self:cross(self, y)
   H.matches(self, T, { -3, 6, -3 }, T .. ' res:cross(res, b)')
   H.matches(torch.cross(H.T(T, { 1, 2, 3 }), H.T(T, { 1 }):expand(3)), T, { -1, 2, -1 }, T .. ' cross with expanded')

   -- diag: vector -> matrix with the vector on diagonal k; matrix -> its diagonal k.
   H.matches(torch.diag(x), T, { { 1, 0, 0 }, { 0, 2, 0 }, { 0, 0, 3 } }, T .. ' torch.diag(vector)')
   H.matches(x:diag(), T, { { 1, 0, 0 }, { 0, 2, 0 }, { 0, 0, 3 } }, T .. ' vector:diag()')
   H.matches(x:diag(1), T, { { 0, 1, 0, 0 }, { 0, 0, 2, 0 }, { 0, 0, 0, 3 }, { 0, 0, 0, 0 } }, T .. ' diag k=1')
   H.matches(torch.diag(x, -2), T,
      { { 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0 }, { 1, 0, 0, 0, 0 }, { 0, 2, 0, 0, 0 }, { 0, 0, 3, 0, 0 } },
      T .. ' diag k=-2')
   H.matches(H.T(T, { { 1, 9 }, { 2, 9 } }):select(2, 1):diag(), T, { { 1, 0 }, { 0, 2 } }, T .. ' diag of a strided vector')
   for name, a in pairs(la) do
      H.matches(a:diag(), T, { 1, 5 }, T .. ' diag of ' .. name)
      H.matches(torch.diag(a, 1), T, { 2, 6 }, T .. ' diag k=1 of ' .. name)
      H.matches(torch.diag(a, 2), T, { 3 }, T .. ' diag k=2 of ' .. name)
      H.matches(torch.diag(a, -1), T, { 4 }, T .. ' diag k=-1 of ' .. name)
      H.matches(a:t():diag(1), T, { 4 }, T .. ' diag k=1 of transposed ' .. name)
   end
   H.eq(torch.diag(la.contiguous, 3):dim(), 0, T .. ' diag past the matrix is empty')
   H.eq(torch.diag(la.contiguous, -2):dim(), 0, T .. ' diag below the matrix is empty')
   local rd = torch[T .. 'Tensor'](7)
   H.check(rawequal(rd:diag(la.transposed), rd), T .. ' res:diag(x) returns res')
   H.matches(rd, T, { 1, 5 }, T .. ' res:diag(x)')
   torch.diag(rd, x, 1)
   H.matches(rd, T, { { 0, 1, 0, 0 }, { 0, 0, 2, 0 }, { 0, 0, 0, 3 }, { 0, 0, 0, 0 } }, T .. ' torch.diag(res, x, k)')
   local rt2 = torch[T .. 'Tensor'](3, 3):fill(5):t()
   torch.diag(rt2, x)
   H.matches(rt2, T, { { 1, 0, 0 }, { 0, 2, 0 }, { 0, 0, 3 } }, T .. ' diag into a transposed result')

   -- tril / triu with k, on square and non-square, transposed and narrowed matrices.
   local sq = H.T(T, SQ)
   H.matches(torch.tril(sq), T, { { 1, 0, 0 }, { 4, 5, 0 }, { 7, 8, 9 } }, T .. ' tril')
   H.matches(sq:tril(1), T, { { 1, 2, 0 }, { 4, 5, 6 }, { 7, 8, 9 } }, T .. ' tril k=1')
   H.matches(sq:tril(-1), T, { { 0, 0, 0 }, { 4, 0, 0 }, { 7, 8, 0 } }, T .. ' tril k=-1')
   H.matches(torch.triu(sq), T, { { 1, 2, 3 }, { 0, 5, 6 }, { 0, 0, 9 } }, T .. ' triu')
   H.matches(sq:triu(1), T, { { 0, 2, 3 }, { 0, 0, 6 }, { 0, 0, 0 } }, T .. ' triu k=1')
   H.matches(torch.triu(sq, -1), T, { { 1, 2, 3 }, { 4, 5, 6 }, { 0, 8, 9 } }, T .. ' triu k=-1')
   H.matches(sq, T, SQ, T .. ' x:tril() returns a new tensor and leaves x')
   for name, a in pairs(la) do
      H.matches(a:tril(), T, { { 1, 0, 0 }, { 4, 5, 0 } }, T .. ' tril of ' .. name)
      H.matches(a:triu(1), T, { { 0, 2, 3 }, { 0, 0, 6 } }, T .. ' triu k=1 of ' .. name)
      H.matches(a:t():triu(), T, { { 1, 4 }, { 0, 5 }, { 0, 0 } }, T .. ' triu of transposed ' .. name)
   end
   local rtr = torch[T .. 'Tensor']()
   H.check(rawequal(rtr:tril(sq, -1), rtr), T .. ' res:tril(x, k) returns res')
   H.matches(rtr, T, { { 0, 0, 0 }, { 4, 0, 0 }, { 7, 8, 0 } }, T .. ' res:tril(x, k)')
   torch.triu(rtr, sq)
   H.matches(rtr, T, { { 1, 2, 3 }, { 0, 5, 6 }, { 0, 0, 9 } }, T .. ' torch.triu(res, x)')
   local inplace = H.T(T, SQ):t()
   inplace:tril(inplace)
   H.matches(inplace, T, { { 1, 0, 0 }, { 2, 5, 0 }, { 3, 6, 9 } }, T .. ' res:tril(res) in place on a transposed view')
   local big = torch[T .. 'Tensor'](4, 5):fill(-1)
   local view = big:narrow(1, 2, 3):narrow(2, 2, 3):copy(sq)
   torch.triu(view, view, 1)
   H.matches(big, T, { { -1, -1, -1, -1, -1 }, { -1, 0, 2, 3, -1 }, { -1, 0, 0, 6, -1 }, { -1, 0, 0, 0, -1 },
      }, T .. ' triu in place on a narrowed view')
end

-- Integer arithmetic wraps: a byte cross product of {1,2,3} and {4,5,6} is {253, 6, 253}.
H.matches(torch.cross(torch.ByteTensor({ 1, 2, 3 }), torch.ByteTensor({ 4, 5, 6 })), 'Byte', { 253, 6, 253 }, 'Byte cross')
H.eq(torch.ByteTensor({ 200, 100 }):dot(torch.ByteTensor({ 2, 3 })), 700, 'Byte dot accumulates as long')
H.eq(torch.ByteTensor({ { 200, 0 }, { 0, 100 } }):trace(), 300, 'Byte trace accumulates as long')
-- Float dot and trace return doubles.
H.eq(torch.FloatTensor({ 0.5, 0.25 }):dot(torch.FloatTensor({ 0.5, 4 })), 1.25, 'Float dot')
H.eq(torch.FloatTensor({ { 0.5, 9 }, { 9, 0.25 } }):trace(), 0.75, 'Float trace')

print('ok')
