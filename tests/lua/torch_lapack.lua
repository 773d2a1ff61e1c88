-- Torch7's LAPACK functions on Float and Double tensors: each result checked by the equation it
-- solves (A X = B, Q R = A, U S V' = A, ...), in the forms with and without result tensors, on
-- non-contiguous inputs, with the layouts Torch7 gives its results, and the errors.

local H = dofile('torch_linalg_helpers.lua')

local tol = { Double = 1e-9, Float = 2e-3 }

-- The largest absolute difference between two tensors of the same size.
local function diff(a, b)
   return (a:double() - b:double()):abs():max()
end

local function close(a, b, T, what)
   H.check(a:isSameSizeAs(b), what .. ': sizes differ')
   local d = diff(a, b)
   if d > tol[T] then error(what .. ': differs by ' .. d, 2) end
end

-- The transpose of a contiguous matrix: how Torch7 returns LAPACK's matrices.
local function column_major(t)
   return t:dim() == 2 and t:stride(1) == 1 and t:stride(2) == t:size(1)
end

local function eye(T, n)
   return torch.eye(n):type('torch.' .. T .. 'Tensor')
end

torch.manualSeed(7)

for _, T in ipairs(H.floats) do
   local function M(data) return torch[T .. 'Tensor'](data) end
   local function rand(...) return torch.rand(...):type('torch.' .. T .. 'Tensor') end
   local A = M({ { 4, 1, 2 }, { 1, 5, 3 }, { 2, 3, 6 } }) -- symmetric positive definite
   local G = M({ { 2, -1, 0 }, { 3, 1, 4 }, { -2, 5, 1 } }) -- general, invertible
   local B = M({ { 1, 2 }, { 3, 4 }, { 5, 6 } })

   -- gesv: X and the LU factors; the result forms; in place on b and a.
   local X, LU = torch.gesv(B, G)
   close(G * X, B, T, T .. ' gesv: A X = B')
   H.check(column_major(X) and column_major(LU), T .. ' gesv: results are column-major')
   H.eq(LU:size(1), 3, T .. ' gesv: LU is 3x3')
   local rb, ra = torch[T .. 'Tensor'](), torch[T .. 'Tensor']()
   local rb2, ra2 = torch.gesv(rb, ra, B, G)
   H.check(rawequal(rb, rb2) and rawequal(ra, ra2), T .. ' gesv returns the result tensors given')
   close(rb, X, T, T .. ' gesv into rb')
   close(ra, LU, T, T .. ' gesv into ra')
   local b, a = B:t():clone():t(), G:clone()
   torch.gesv(b, a, b, a)
   close(b, X, T, T .. ' gesv in place')
   close(torch.gesv(B:select(2, 1), G), X:select(2, 1):reshape(3, 1), T, T .. ' gesv of a vector')
   close(torch.gesv(B:t():clone():t(), G:t():clone():t()), X, T, T .. ' gesv of transposed layouts')
   H.check(B:equal(M({ { 1, 2 }, { 3, 4 }, { 5, 6 } })), T .. ' gesv leaves b')

   -- trtrs: every uplo, trans, diag.
   local U, L = torch.triu(G) + eye(T, 3) * 3, torch.tril(G) + eye(T, 3) * 3
   close(U * torch.trtrs(B, U), B, T, T .. ' trtrs U')
   close(L * torch.trtrs(B, L, 'L'), B, T, T .. ' trtrs L')
   close(U:t() * torch.trtrs(B, U, 'U', 'T'), B, T, T .. ' trtrs U\'')
   close(L:t() * torch.trtrs(B, L, 'L', 'T', 'N'), B, T, T .. ' trtrs L\'')
   local U1 = U:clone()
   for i = 1, 3 do U1[i][i] = 1 end
   close(U1 * torch.trtrs(B, U, 'U', 'N', 'U'), B, T, T .. ' trtrs unit diagonal')
   local tx, ta = torch[T .. 'Tensor'](), torch[T .. 'Tensor']()
   torch.trtrs(tx, ta, B, L, 'L')
   close(L * tx, B, T, T .. ' trtrs into tx')

   -- gels: overdetermined (least squares: A'(AX - B) = 0), underdetermined (AX = B).
   local Over = M({ { 1, 1 }, { 1, 2 }, { 1, 3 }, { 1, 4 } })
   local y = M({ { 6 }, { 5 }, { 7 }, { 10 } })
   local coef = torch.gels(y, Over)
   H.eq(coef:size(1), 2, T .. ' gels: n rows')
   close(coef, M({ { 3.5 }, { 1.4 } }), T, T .. ' gels least squares')
   close(Over:t() * (Over * coef - y), M({ { 0 }, { 0 } }), T, T .. ' gels normal equations')
   local Under = Over:t():clone()
   local xu = torch.gels(M({ { 1 }, { 2 } }), Under)
   H.eq(xu:size(1), 4, T .. ' gels: underdetermined has n rows')
   close(Under * xu, M({ { 1 }, { 2 } }), T, T .. ' gels underdetermined')
   local gb, ga = torch[T .. 'Tensor'](), torch[T .. 'Tensor']()
   local gb2 = torch.gels(gb, ga, y, Over)
   H.check(rawequal(gb, gb2), T .. ' gels returns rb')
   close(gb, coef, T, T .. ' gels into rb')

   -- inverse
   local Gi = torch.inverse(G)
   close(G * Gi, eye(T, 3), T, T .. ' inverse: A A^-1 = I')
   close(Gi * G, eye(T, 3), T, T .. ' inverse: A^-1 A = I')
   H.check(not Gi:isContiguous(), T .. ' inverse: column-major result')
   local ri = torch[T .. 'Tensor'](3, 3)
   H.check(rawequal(torch.inverse(ri, G), ri), T .. ' inverse returns res')
   close(ri, Gi, T, T .. ' inverse into res')

   -- potrf, potrs, potri
   local Uc = torch.potrf(A)
   close(Uc:t() * Uc, A, T, T .. ' potrf: U\'U = A')
   H.check(diff(Uc, torch.triu(Uc)) == 0, T .. ' potrf: U is upper triangular')
   local Lc = torch.potrf(A, 'L')
   close(Lc * Lc:t(), A, T, T .. ' potrf L: LL\' = A')
   H.check(diff(Lc, torch.tril(Lc)) == 0, T .. ' potrf: L is lower triangular')
   close(A * torch.potrs(B, Uc), B, T, T .. ' potrs U')
   close(A * torch.potrs(B, Lc, 'L'), B, T, T .. ' potrs L')
   close(torch.potri(Uc), torch.inverse(A), T, T .. ' potri U')
   close(torch.potri(Lc, 'L'), torch.inverse(A), T, T .. ' potri L')
   local rp = torch[T .. 'Tensor']()
   torch.potrf(rp, A, 'L')
   close(rp, Lc, T, T .. ' potrf into res')

   -- pstrf: P'AP = U'U with P[piv[k], k] = 1; pivots 1-based, an IntTensor.
   for _, uplo in ipairs({ 'U', 'L' }) do
      local F, piv = torch.pstrf(A, uplo)
      H.eq(torch.typename(piv), 'torch.IntTensor', T .. ' pstrf pivots are an IntTensor')
      H.check(piv:min() >= 1 and piv:max() <= 3, T .. ' pstrf pivots are 1-based')
      local p = piv:long()
      local permuted = A:index(1, p):index(2, p)
      local rebuilt = uplo == 'U' and F:t() * F or F * F:t()
      close(rebuilt, permuted, T, T .. ' pstrf ' .. uplo)
   end
   local pf, pp = torch[T .. 'Tensor'](), torch.IntTensor()
   local pf2, pp2 = torch.pstrf(pf, pp, A, 'U', -1)
   H.check(rawequal(pf, pf2) and rawequal(pp, pp2), T .. ' pstrf returns the result tensors')
   H.eq(pp:size(1), 3, T .. ' pstrf into piv')

   -- symeig: A V = V diag(e), ascending; eig: the same eigenvalues, no imaginary part.
   local e, V = torch.symeig(A, 'V')
   close(A * V, V * torch.diag(e), T, T .. ' symeig: A V = V diag(e)')
   close(V:t() * V, eye(T, 3), T, T .. ' symeig: V orthonormal')
   H.check(e[1] <= e[2] and e[2] <= e[3], T .. ' symeig: ascending')
   close(torch.symeig(A), e, T, T .. ' symeig N')
   close(torch.symeig(A, 'V', 'L'), e, T, T .. ' symeig L')
   local ee, ev = torch.eig(A, 'V')
   H.eq(ee:size(2), 2, T .. ' eig: n x 2 eigenvalues')
   close(ee:select(2, 2), torch.zeros(3):type(ee:type()), T, T .. ' eig: real eigenvalues')
   close(A * ev, ev * torch.diag(ee:select(2, 1)), T, T .. ' eig: A v = lambda v')
   local rot = M({ { 0, -1 }, { 1, 0 } })
   local re = torch.eig(rot)
   close(re:select(2, 1), torch.zeros(2):type(re:type()), T, T .. ' eig: rotation, real parts')
   close(re:select(2, 2):abs(), torch.ones(2):type(re:type()), T, T .. ' eig: rotation, imaginary parts')

   -- svd: U diag(S) V' = A, for 'S' and 'A', wide and tall.
   for _, shape in ipairs({ { 4, 3 }, { 3, 5 } }) do
      local X0 = rand(shape[1], shape[2])
      local u, s, v = torch.svd(X0)
      local k = math.min(shape[1], shape[2])
      H.check(u:size(2) == k and s:size(1) == k and v:size(2) == k, T .. ' svd S sizes')
      close(u * torch.diag(s) * v:t(), X0, T, T .. ' svd: U S V\' = A')
      close(u:t() * u, eye(T, k), T, T .. ' svd: U orthonormal')
      local ua, sa, va = torch.svd(X0, 'A')
      H.check(ua:size(1) == shape[1] and ua:size(2) == shape[1] and va:size(2) == shape[2], T .. ' svd A sizes')
      close(ua:t() * ua, eye(T, shape[1]), T, T .. ' svd A: U orthogonal')
      close(va:t() * va, eye(T, shape[2]), T, T .. ' svd A: V orthogonal')
      close(sa, s, T, T .. ' svd A: the same S')
   end

   -- qr, geqrf, orgqr, ormqr
   for _, shape in ipairs({ { 5, 3 }, { 3, 5 }, { 4, 4 } }) do
      local X0 = rand(shape[1], shape[2])
      local k = math.min(shape[1], shape[2])
      local q, r = torch.qr(X0)
      H.check(q:size(1) == shape[1] and q:size(2) == k and r:size(1) == k and r:size(2) == shape[2],
         T .. ' qr sizes')
      close(q * r, X0, T, T .. ' qr: Q R = A')
      close(q:t() * q, eye(T, k), T, T .. ' qr: Q orthonormal')
      H.check(diff(r, torch.triu(r)) == 0, T .. ' qr: R upper triangular')
      local f, tau = torch.geqrf(X0)
      H.eq(tau:size(1), k, T .. ' geqrf: k scales')
      close(torch.orgqr(f, tau):narrow(2, 1, k), q, T, T .. ' orgqr gives qr\'s Q')
      close(torch.triu(f:narrow(1, 1, k)), r, T, T .. ' geqrf holds R')
      local qq, rr = torch[T .. 'Tensor'](), torch[T .. 'Tensor']()
      local qq2, rr2 = torch.qr(qq, rr, X0)
      H.check(rawequal(qq, qq2) and rawequal(rr, rr2), T .. ' qr returns the result tensors')
      close(qq, q, T, T .. ' qr into q')
   end
   local S0 = rand(4, 4)
   local q4 = torch.qr(S0)
   local f4, tau4 = torch.geqrf(S0)
   local C = rand(4, 2)
   close(torch.ormqr(f4, tau4, C), q4 * C, T, T .. ' ormqr Q C')
   close(torch.ormqr(f4, tau4, C, 'L', 'T'), q4:t() * C, T, T .. ' ormqr Q\' C')
   close(torch.ormqr(f4, tau4, C:t():clone(), 'R'), C:t() * q4, T, T .. ' ormqr C Q')
   close(torch.ormqr(f4, tau4, C:t():clone(), 'R', 'T'), C:t() * q4:t(), T, T .. ' ormqr C Q\'')
end

-- Results given with layouts of their own keep them and get the values.
do
   local X = torch.rand(4, 4)
   X = X:t() * X + torch.eye(4)
   local e = torch.zeros(4, 2, 2)[{ {}, 2, {} }]
   local v = torch.zeros(4, 2, 4)[{ {}, 2, {} }]
   torch.eig(e, v, X, 'V')
   H.eq(v:stride(1), 8, 'eig keeps the layout of v')
   close(v * torch.diag(e:select(2, 1)) * v:t(), X, 'Double', 'eig into non-contiguous e, v')
   local rv = torch.zeros(4, 4)
   torch.symeig(torch.zeros(4), rv, X, 'V')
   H.check(not rv:isContiguous(), 'symeig: a contiguous rv becomes column-major')
end

-- Errors: arguments, sizes, LAPACK's failures.
local D = torch.Tensor(3, 3):fill(1)
H.fails('gesv: A should have 2 dimensions, but has 1', torch.gesv, torch.Tensor(3), torch.Tensor(3))
H.fails('gesv: A should be square, but is 3x2', torch.gesv, torch.Tensor(3), torch.Tensor(3, 2))
H.fails('gesv: A,B size incompatible - A has 3 rows, B has 2', torch.gesv, torch.Tensor(2), D)
H.fails('gesv: U(2,2) is zero, singular U.', torch.gesv, torch.ones(3, 1), D)
H.fails('inverse: U(2,2) is 0, U is singular', torch.inverse, D)
H.fails('inverse: A should be square', torch.inverse, torch.Tensor(2, 3))
H.fails('symeig: A should be 2 dimensional', torch.symeig, torch.Tensor(3))
H.fails('potrf: the leading minor of order 2 is not positive definite', torch.potrf, D)
H.fails('pstrf: matrix is rank deficient or not positive semidefinite', torch.pstrf,
   torch.Tensor({ { 1, 0 }, { 0, -1 } }))
H.fails('trtrs: A(2,2) is zero, singular A', torch.trtrs, torch.ones(2, 1), torch.Tensor({ { 1, 1 }, { 0, 0 } }))
H.fails('gesv: LongTensor is not supported (FloatTensor or DoubleTensor expected)',
   torch.gesv, torch.LongTensor(3, 1), torch.LongTensor(3, 3))
H.fails('potrf: invalid arguments: DoubleTensor string\n'
   .. 'expected arguments: *DoubleTensor* DoubleTensor [(U|L)] | DoubleTensor [(U|L)]', torch.potrf, D, 'X')
H.fails('gesv: invalid arguments: DoubleTensor FloatTensor\n'
   .. 'expected arguments: *DoubleTensor* *DoubleTensor* DoubleTensor DoubleTensor | DoubleTensor DoubleTensor',
   torch.gesv, torch.Tensor(3, 1), torch.FloatTensor(3, 3))
H.fails('pstrf: invalid arguments: DoubleTensor DoubleTensor DoubleTensor\n'
   .. 'expected arguments: *DoubleTensor* *IntTensor* DoubleTensor [(U|L)] [number] | DoubleTensor [(U|L)] [number]',
   torch.pstrf, D, D, D)
H.check(torch.Tensor().gesv == nil, 'the LAPACK functions are not methods (as in Torch7)')

print('ok')
