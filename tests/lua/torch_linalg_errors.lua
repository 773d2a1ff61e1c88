-- Every linear-algebra method rejects bad input with an error that names the method and, for
-- size mismatches, the sizes; nothing is modified by a call that fails.

local H = dofile('torch_linalg_helpers.lua')

local A = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
local B = torch.Tensor({ { 7, 8 }, { 9, 10 }, { 11, 12 } })
local v2, v3 = torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2, 3 })
local M = torch.Tensor(2, 2):fill(1)
local D = 'torch.DoubleTensor'

-- mm / addmm
H.fails('mm: matrices expected, got 1D, 2D tensors', torch.mm, v3, B)
H.fails('mm: size mismatch, m1: [2 x 3], m2: [2 x 3]', torch.mm, A, A)
H.fails('mm: invalid arguments: DoubleTensor DoubleTensor\nexpected arguments: *DoubleTensor* DoubleTensor DoubleTensor',
   function() return A:mm(B) end)
H.fails('mm: invalid arguments: DoubleTensor number\nexpected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor',
   torch.mm, A, 2)
H.fails('mm: bad argument #2 (torch.DoubleTensor expected, got torch.FloatTensor)', torch.mm, A, B:float())
H.fails('mm: invalid arguments: DoubleTensor DoubleTensor DoubleTensor DoubleTensor\n'
   .. 'expected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor',
   torch.mm, M, M, A, B)
H.fails('addmm: size mismatch, t: [3 x 3], m1: [2 x 3], m2: [3 x 2]', torch.addmm, torch.Tensor(3, 3), A, B)
H.fails('addmm: matrix expected, got 1D tensor for t', torch.addmm, v2, A, B)
H.fails('addmm: matrices expected, got 2D, 1D tensors', torch.addmm, M, A, v3)
H.fails('addmm: size mismatch, m1: [2 x 3], m2: [2 x 2]', torch.addmm, M, A, M)
H.fails('addmm: invalid arguments: DoubleTensor number DoubleTensor DoubleTensor DoubleTensor\n'
   .. 'expected arguments: *DoubleTensor* [DoubleTensor] [number] DoubleTensor DoubleTensor'
   .. ' | *DoubleTensor* number [DoubleTensor] number DoubleTensor DoubleTensor',
   function() return M:addmm(3, M, A, B) end)
H.fails('addmm: invalid arguments: DoubleTensor DoubleTensor\n'
   .. 'expected arguments: [*DoubleTensor*] [number] DoubleTensor [number] DoubleTensor DoubleTensor', torch.addmm, A, B)
H.fails('addmm: invalid arguments: string DoubleTensor DoubleTensor DoubleTensor\n'
   .. 'expected arguments: [*DoubleTensor*] [number] DoubleTensor [number] DoubleTensor DoubleTensor',
   torch.addmm, 'x', M, A, B)
H.fails('addmm: bad argument #3 (torch.DoubleTensor expected, got torch.IntTensor)',
   function() return M:addmm(A, B:int()) end)
local keep = M:clone()
pcall(torch.addmm, M, torch.Tensor(3, 3), A, B)
H.matches(M, 'Double', { { 1, 1 }, { 1, 1 } }, 'a failed addmm leaves res')
H.matches(keep, 'Double', { { 1, 1 }, { 1, 1 } }, 'clone')

-- mv / addmv
H.fails('mv: matrix and vector expected, got 2D, 2D', torch.mv, A, B)
H.fails('mv: size mismatch, [2 x 3], [2]', torch.mv, A, v2)
H.fails('addmv: vector expected, got t: 2D', torch.addmv, M, A, v3)
H.fails('addmv: size mismatch, t: [3], mat: [2 x 3]', torch.addmv, v3, A, v3)

-- ger / addr
H.fails('ger: vector and vector expected, got 2D, 1D tensors', torch.ger, A, v3)
H.fails('addr: expected matrix, got 1D tensor for t', torch.addr, v2, v2, v3)
H.fails('addr: size mismatch, t: [3 x 2], vec1: [2], vec2: [3]', torch.addr, torch.Tensor(3, 2), v2, v3)

-- bmm / baddbmm / addbmm
local b1, b2 = torch.Tensor(2, 2, 3), torch.Tensor(2, 3, 2)
H.fails('bmm: expected 3D tensor for batch1, got 2D', torch.bmm, A, b2)
H.fails('bmm: expected 3D tensor for batch2, got 2D', torch.bmm, b1, B)
H.fails('bmm: equal number of batches expected, got 2, 3', torch.bmm, b1, torch.Tensor(3, 3, 2))
H.fails('bmm: wrong matrix size, batch1: 2x3, batch2: 2x2', torch.bmm, b1, torch.Tensor(2, 2, 2))
H.fails('baddbmm: output tensor of incorrect size (M: [2 x 2], expected [2 x 2 x 2])', torch.baddbmm, M, b1, b2)
H.fails('addbmm: output tensor of incorrect size (M: [2 x 3], expected [2 x 2])', torch.addbmm, A, b1, b2)

-- dot / trace
H.fails('dot: sizes do not match (3 elements vs 2)', torch.dot, v3, v2)
H.fails('dot: invalid arguments: DoubleTensor\nexpected arguments: DoubleTensor DoubleTensor', torch.dot, v3)
H.fails('dot: bad argument #2 (torch.DoubleTensor expected, got torch.FloatTensor)', torch.dot, v3, v3:float())
H.fails('trace: expected a matrix, got 1D tensor', torch.trace, v3)
H.fails('trace: invalid arguments: number\nexpected arguments: DoubleTensor', torch.trace, 3)

-- cross
H.fails('cross: inconsistent tensor dimension 1D, 2D', torch.cross, v3, A)
H.fails('cross: inconsistent tensor sizes [3], [2]', torch.cross, v3, v2)
H.fails('cross: no dimension of size 3 in a: [2 x 2]', torch.cross, M, M)
H.fails('cross: dimension 1 does not have size 3', torch.cross, A, A, 1)
H.fails('cross: dimension 3 out of range', torch.cross, A, A, 3)
H.fails('cross: dimension must be an integer, got 1.5', torch.cross, A, A, 1.5)
H.fails('cross: invalid arguments: DoubleTensor\nexpected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor [index]',
   torch.cross, v3)

-- diag / tril / triu
H.fails('diag: matrix or a vector expected, got 3D tensor', torch.diag, b1)
H.fails('diag: matrix or a vector expected, got 0D tensor', torch.diag, torch.Tensor())
H.fails('diag: k must be an integer, got 1.5', torch.diag, v3, 1.5)
H.fails('diag: a tensor of size 9223372036854775810x9223372036854775810 is too large (more than 2^64 elements)', torch.diag, v3, 1e300)
H.fails('diag: a tensor of size 9223372036854775811x9223372036854775811 is too large (more than 2^64 elements)', torch.diag, v3, -1e300)
H.eq(torch.diag(A, 1e300):dim(), 0, 'a 2-D diag far above is empty')
H.fails('diag: invalid arguments: DoubleTensor string\nexpected arguments: [*DoubleTensor*] DoubleTensor [number]',
   torch.diag, v3, 'k')
H.fails('tril: expected a matrix, got 1D tensor', torch.tril, v3)
H.fails('triu: expected a matrix, got 3D tensor', function() return b1:triu() end)
H.fails('triu: k must be an integer, got 0.5', torch.triu, A, 0.5)

-- setnumthreads
H.fails('setnumthreads: number of threads must be at least 1, got 0', torch.setnumthreads, 0)
H.fails('setnumthreads: bad argument #1 (number expected, got nil)', torch.setnumthreads)
H.fails('setnumthreads: bad argument #1 (integer expected, got 1.5)', torch.setnumthreads, 1.5)

print('ok')
