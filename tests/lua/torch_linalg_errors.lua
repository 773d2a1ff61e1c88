-- Every linear-algebra method rejects bad input with an error that names the method and, for
-- size mismatches, the sizes; nothing is modified by a call that fails.

local H = dofile('torch_linalg_helpers.lua')

local A = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
local B = torch.Tensor({ { 7, 8 }, { 9, 10 }, { 11, 12 } })
local v2, v3 = torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2, 3 })
local M = torch.Tensor(2, 2):fill(1)
local D = 'torch.DoubleTensor'

-- mm / addmm
H.err('mm: matrices expected, got 1D, 2D tensors', torch.mm, v3, B)
H.err('mm: size mismatch, m1: [2 x 3], m2: [2 x 3]', torch.mm, A, A)
H.err('mm: invalid arguments (' .. D .. ', ' .. D .. '); expected res:mm(x, y)', function() return A:mm(B) end)
H.err('mm: invalid arguments (' .. D .. ', number); expected torch.mm([res,] x, y)', torch.mm, A, 2)
H.err('mm: bad argument #2 (torch.DoubleTensor expected, got torch.FloatTensor)', torch.mm, A, B:float())
H.err('mm: invalid arguments (' .. D .. ', ' .. D .. ', ' .. D .. ', ' .. D .. '); expected torch.mm([res,] x, y)',
   torch.mm, M, M, A, B)
H.err('addmm: size mismatch, t: [3 x 3], m1: [2 x 3], m2: [3 x 2]', torch.addmm, torch.Tensor(3, 3), A, B)
H.err('addmm: matrix expected, got 1D tensor for t', torch.addmm, v2, A, B)
H.err('addmm: matrices expected, got 2D, 1D tensors', torch.addmm, M, A, v3)
H.err('addmm: size mismatch, m1: [2 x 3], m2: [2 x 2]', torch.addmm, M, A, M)
H.err('addmm: invalid arguments (' .. D .. ', number, ' .. D .. ', ' .. D .. ', ' .. D ..
   '); expected res:addmm([M,] [alpha,] x, y) or res:addmm(beta, [M,] alpha, x, y)',
   function() return M:addmm(3, M, A, B) end)
H.err('addmm: invalid arguments (' .. D .. ', ' .. D ..
   '); expected torch.addmm([res,] [beta,] M, [alpha,] x, y)', torch.addmm, A, B)
H.err('addmm: invalid arguments (string, ' .. D .. ', ' .. D .. ', ' .. D ..
   '); expected torch.addmm([res,] [beta,] M, [alpha,] x, y)', torch.addmm, 'x', M, A, B)
H.err('addmm: bad argument #3 (torch.DoubleTensor expected, got torch.IntTensor)',
   function() return M:addmm(A, B:int()) end)
local keep = M:clone()
pcall(torch.addmm, M, torch.Tensor(3, 3), A, B)
H.same(M, 'Double', { { 1, 1 }, { 1, 1 } }, 'a failed addmm leaves res')
H.same(keep, 'Double', { { 1, 1 }, { 1, 1 } }, 'clone')

-- mv / addmv
H.err('mv: matrix and vector expected, got 2D, 2D', torch.mv, A, B)
H.err('mv: size mismatch, [2 x 3], [2]', torch.mv, A, v2)
H.err('addmv: vector expected, got t: 2D', torch.addmv, M, A, v3)
H.err('addmv: size mismatch, t: [3], mat: [2 x 3]', torch.addmv, v3, A, v3)

-- ger / addr
H.err('ger: vector and vector expected, got 2D, 1D tensors', torch.ger, A, v3)
H.err('addr: expected matrix, got 1D tensor for t', torch.addr, v2, v2, v3)
H.err('addr: size mismatch, t: [3 x 2], vec1: [2], vec2: [3]', torch.addr, torch.Tensor(3, 2), v2, v3)

-- bmm / baddbmm / addbmm
local b1, b2 = torch.Tensor(2, 2, 3), torch.Tensor(2, 3, 2)
H.err('bmm: expected 3D tensor for batch1, got 2D', torch.bmm, A, b2)
H.err('bmm: expected 3D tensor for batch2, got 2D', torch.bmm, b1, B)
H.err('bmm: equal number of batches expected, got 2, 3', torch.bmm, b1, torch.Tensor(3, 3, 2))
H.err('bmm: wrong matrix size, batch1: 2x3, batch2: 2x2', torch.bmm, b1, torch.Tensor(2, 2, 2))
H.err('baddbmm: output tensor of incorrect size (M: [2 x 2], expected [2 x 2 x 2])', torch.baddbmm, M, b1, b2)
H.err('addbmm: output tensor of incorrect size (M: [2 x 3], expected [2 x 2])', torch.addbmm, A, b1, b2)

-- dot / trace
H.err('dot: sizes do not match (3 elements vs 2)', torch.dot, v3, v2)
H.err('dot: invalid arguments (' .. D .. '); expected x:dot(y) or torch.dot(x, y)', torch.dot, v3)
H.err('dot: bad argument #2 (torch.DoubleTensor expected, got torch.FloatTensor)', torch.dot, v3, v3:float())
H.err('trace: expected a matrix, got 1D tensor', torch.trace, v3)
H.err('trace: invalid arguments (number); expected x:trace() or torch.trace(x)', torch.trace, 3)

-- cross
H.err('cross: inconsistent tensor dimension 1D, 2D', torch.cross, v3, A)
H.err('cross: inconsistent tensor sizes [3], [2]', torch.cross, v3, v2)
H.err('cross: no dimension of size 3 in a: [2 x 2]', torch.cross, M, M)
H.err('cross: dimension 1 does not have size 3', torch.cross, A, A, 1)
H.err('cross: dimension 3 out of range', torch.cross, A, A, 3)
H.err('cross: dimension must be an integer, got 1.5', torch.cross, A, A, 1.5)
H.err('cross: invalid arguments (' .. D .. '); expected torch.cross([res,] a, b [, dim]) or a:cross(b [, dim])',
   torch.cross, v3)

-- diag / tril / triu
H.err('diag: matrix or a vector expected, got 3D tensor', torch.diag, b1)
H.err('diag: matrix or a vector expected, got 0D tensor', torch.diag, torch.Tensor())
H.err('diag: k must be an integer, got 1.5', torch.diag, v3, 1.5)
H.err('diag: tensor size is too large', torch.diag, v3, 1e300)
H.err('diag: tensor size is too large', torch.diag, v3, -1e300)
H.eq(torch.diag(A, 1e300):dim(), 0, 'a 2-D diag far above is empty')
H.err('diag: invalid arguments (' .. D .. ', string); expected torch.diag([res,] x [, k]) or x:diag([k])',
   torch.diag, v3, 'k')
H.err('tril: expected a matrix, got 1D tensor', torch.tril, v3)
H.err('triu: expected a matrix, got 3D tensor', function() return b1:triu() end)
H.err('triu: k must be an integer, got 0.5', torch.triu, A, 0.5)

-- setnumthreads
H.err('setnumthreads: number of threads must be at least 1, got 0', torch.setnumthreads, 0)
H.err('setnumthreads: bad argument #1 (number expected, got nil)', torch.setnumthreads)
H.err('setnumthreads: bad argument #1 (integer expected, got 1.5)', torch.setnumthreads, 1.5)

print('ok')
