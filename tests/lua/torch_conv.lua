-- torch.conv2, xcorr2, conv3 and xcorr3 against hand-computed values: valid and full, convolution
-- against correlation (the kernel flipped), 2-D and 3-D, the plane forms (pairwise and summed over
-- the input planes), every numeric type, the result forms, and the errors.

local H = dofile('torch_test_helpers.lua')

local X = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }
local K = { { 1, 2 }, { 3, 4 } }
local XV = { 37, 47, 67, 77 }
local CV = { 23, 33, 53, 63 }
local CF = { 1, 4, 7, 6, 7, 23, 33, 24, 19, 53, 63, 42, 21, 52, 59, 36 }
local XF = { 4, 11, 18, 9, 18, 37, 47, 21, 36, 67, 77, 33, 14, 23, 26, 9 }

local X3 = { { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }
local K3 = { { { 1, 0 }, { 0, 2 } }, { { 0, 3 }, { 1, 0 } } }
local C3F = { 1, 2, 0, 3, 6, 4, 0, 6, 8, 5, 9, 6, 8, 29, 24, 3, 18, 16, 0, 15, 18, 5, 27, 24, 7, 8, 0 }
local X3F = { 0, 1, 2, 3, 9, 4, 9, 12, 0, 2, 9, 6, 21, 34, 10, 21, 27, 4, 10, 12, 0, 14, 21, 6, 0, 7, 8 }

for _, T in ipairs(H.types) do
   local tn = 'torch.' .. T .. 'Tensor'
   local new = torch[T .. 'Tensor']
   local x, k = new(X), new(K)

   -- 2-D: valid (the default, 'V', or any string starting with V) and full.
   H.tensor(torch.conv2(x, k), { 2, 2 }, CV, T .. ' conv2', tn)
   H.tensor(torch.conv2(x, k, 'V'), { 2, 2 }, CV, T .. " conv2 'V'", tn)
   H.tensor(torch.conv2(x, k, 'VX'), { 2, 2 }, CV, T .. " conv2 'VX'", tn)
   H.tensor(torch.conv2(x, k, 'F'), { 4, 4 }, CF, T .. " conv2 'F'", tn)
   H.tensor(torch.conv2(x, k, 'Full'), { 4, 4 }, CF, T .. " conv2 'Full'", tn)
   H.tensor(torch.xcorr2(x, k), { 2, 2 }, XV, T .. ' xcorr2', tn)
   H.tensor(torch.xcorr2(x, k, 'F'), { 4, 4 }, XF, T .. " xcorr2 'F'", tn)
   -- The method is the function: x:conv2(k) is new, res:conv2(x, k) writes res.
   H.tensor(x:conv2(k), { 2, 2 }, CV, T .. ' x:conv2(k)', tn)
   H.tensor(x:xcorr2(k, 'F'), { 4, 4 }, XF, T .. " x:xcorr2(k, 'F')", tn)
   H.tensor(x, { 3, 3 }, H.flatten(X), T .. ' x:conv2 leaves x', tn)
   local r = new()
   H.check(rawequal(torch.conv2(r, x, k), r), T .. ' torch.conv2(res, x, k) returns res')
   H.tensor(r, { 2, 2 }, CV, T .. ' torch.conv2(res, x, k)', tn)
   H.check(rawequal(r:xcorr2(x, k, 'F'), r), T .. ' res:xcorr2(x, k) returns res')
   H.tensor(r, { 4, 4 }, XF, T .. ' res:xcorr2 resizes res', tn)

   -- The flipped kernel turns correlation into convolution.
   local kf = new({ { 4, 3 }, { 2, 1 } })
   H.equal(torch.xcorr2(x, kf), torch.conv2(x, k), T .. ' xcorr2 with the flipped kernel')
   H.equal(torch.xcorr2(x, kf, 'F'), torch.conv2(x, k, 'F'), T .. " 'F' xcorr2 with the flipped kernel")

   -- Pairwise planes: plane i with kernel i.
   local xx = new(2, 3, 3)
   xx[1]:copy(x)
   xx[2]:copy(x):mul(2)
   local kk = new(2, 2, 2)
   kk[1]:copy(k)
   kk[2]:copy(kf)
   local pv = torch.conv2(xx, kk)
   H.tensor(pv, { 2, 2, 2 }, nil, T .. ' pairwise conv2', tn)
   H.equal(pv[1], torch.conv2(x, k), T .. ' pairwise conv2, plane 1')
   H.equal(pv[2], torch.conv2(xx[2], kf), T .. ' pairwise conv2, plane 2')
   local pf = torch.xcorr2(xx, kk, 'F')
   H.tensor(pf, { 2, 4, 4 }, nil, T .. " pairwise xcorr2 'F'", tn)
   H.equal(pf[2], torch.xcorr2(xx[2], kf, 'F'), T .. " pairwise xcorr2 'F', plane 2")

   -- Summed planes: 2 input planes, 3 x 2 kernels, 3 output planes.
   local ks = new(3, 2, 2, 2):zero()
   ks[1][1]:copy(k)
   ks[2][2]:copy(k)
   ks[3][1]:copy(k)
   ks[3][2]:copy(kf)
   local sv = torch.conv2(xx, ks)
   H.tensor(sv, { 3, 2, 2 }, nil, T .. ' summed conv2', tn)
   H.equal(sv[1], torch.conv2(x, k), T .. ' summed conv2, plane 1')
   H.equal(sv[2], torch.conv2(xx[2], k), T .. ' summed conv2, plane 2')
   H.equal(sv[3], torch.conv2(x, k) + torch.conv2(xx[2], kf), T .. ' summed conv2, plane 3')
   local sf = xx:xcorr2(ks, 'F')
   H.tensor(sf, { 3, 4, 4 }, nil, T .. " summed xcorr2 'F'", tn)
   H.equal(sf[3], torch.xcorr2(x, k, 'F') + torch.xcorr2(xx[2], kf, 'F'), T .. " summed xcorr2 'F', plane 3")

   -- 3-D.
   local x3, k3 = new(X3), new(K3)
   H.tensor(torch.xcorr3(x3, k3), { 1, 1, 1 }, { 34 }, T .. ' xcorr3', tn)
   H.tensor(torch.conv3(x3, k3), { 1, 1, 1 }, { 29 }, T .. ' conv3', tn)
   H.tensor(torch.conv3(x3, k3, 'F'), { 3, 3, 3 }, C3F, T .. " conv3 'F'", tn)
   H.tensor(x3:xcorr3(k3, 'F'), { 3, 3, 3 }, X3F, T .. " xcorr3 'F'", tn)
   local xx3 = new(2, 2, 2, 2)
   xx3[1]:copy(x3)
   xx3[2]:copy(k3)
   local kk3 = new(2, 2, 2, 2)
   kk3[1]:copy(k3)
   kk3[2]:copy(x3)
   H.tensor(torch.xcorr3(xx3, kk3), { 2, 1, 1, 1 }, { 34, 34 }, T .. ' pairwise xcorr3', tn)
   H.tensor(torch.conv3(xx3, kk3), { 2, 1, 1, 1 }, { 29, 29 }, T .. ' pairwise conv3', tn)
   local ks3 = new(1, 2, 2, 2, 2)
   ks3[1][1]:copy(k3)
   ks3[1][2]:copy(x3)
   H.tensor(torch.xcorr3(xx3, ks3), { 1, 1, 1, 1 }, { 68 }, T .. ' summed xcorr3', tn)
   local s3f = torch.conv3(xx3, ks3, 'F')
   H.tensor(s3f, { 1, 3, 3, 3 }, nil, T .. " summed conv3 'F'", tn)
   H.equal(s3f[1], torch.conv3(x3, k3, 'F') + torch.conv3(k3, x3, 'F'), T .. " summed conv3 'F'")
end

-- Strings are read by their first letter, as Torch7 does, and only 'V' and 'F' are options.
H.fails("conv2: invalid arguments: DoubleTensor DoubleTensor string\n"
   .. "expected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor [(V|F)]",
   torch.conv2, torch.Tensor(X), torch.Tensor(K), 'full')
H.fails("conv2: invalid arguments: DoubleTensor DoubleTensor string\n"
   .. "expected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor [(V|F)]",
   torch.conv2, torch.Tensor(X), torch.Tensor(K), 'X')

-- Integers wrap as C's do.
H.tensor(torch.conv2(torch.ByteTensor({ { 200 } }), torch.ByteTensor({ { 2 } })), { 1, 1 }, { 144 }, 'Byte wraps')

-- Layouts: a transposed input, a narrowed kernel, a non-contiguous result of the right size
-- (written through its strides), and a result that is the input itself.
do
   local x, k = torch.Tensor(X), torch.Tensor(K)
   local xt = torch.Tensor(3, 3)
   xt:t():copy(x)
   H.equal(torch.conv2(xt:t(), k), torch.conv2(x, k), 'transposed input')
   local big = torch.Tensor(4, 5):fill(-1)
   big:narrow(1, 2, 2):narrow(2, 3, 2):copy(k)
   H.equal(torch.conv2(x, big:narrow(1, 2, 2):narrow(2, 3, 2)), torch.conv2(x, k), 'narrowed kernel')
   local rt = torch.Tensor(4, 4):fill(99):t()
   torch.xcorr2(rt, x, k, 'F')
   H.tensor(rt, { 4, 4 }, XF, 'transposed result')
   H.check(not rt:isContiguous(), 'the result keeps its strides')
   local self = torch.Tensor(X)
   self:conv2(self, k)
   H.tensor(self, { 2, 2 }, CV, 'res:conv2(res, k)')
end

-- Errors name the function; a call that fails leaves its result alone.
do
   local x, k = torch.Tensor(X), torch.Tensor(K)
   H.fails('conv2: expected a 2D input with a 2D kernel, a 3D input with a 3D kernel, or a 3D input '
      .. 'with a 4D kernel (got a 2D input and a 3D kernel)', torch.conv2, x, torch.Tensor(2, 2, 2))
   H.fails('xcorr3: expected a 3D input with a 3D kernel, a 4D input with a 4D kernel, or a 4D input '
      .. 'with a 5D kernel (got a 2D input and a 2D kernel)', torch.xcorr3, x, k)
   H.fails("conv2: input image is smaller than kernel (input 3x3, kernel 4x2); 'F' gives the full "
      .. 'convolution', torch.conv2, x, torch.Tensor(4, 2))
   H.tensor(torch.conv2(x, torch.Tensor(4, 2):fill(1), 'F'), { 6, 4 }, nil, "a bigger kernel with 'F'")
   H.fails("xcorr3: input image is smaller than kernel (input 2x2x2, kernel 3x1x1); 'F' gives the "
      .. 'full convolution', torch.xcorr3, torch.Tensor(X3), torch.Tensor(3, 1, 1))
   H.fails('conv2: invalid number of input/kernel planes (the input has 2, the kernel 3)',
      torch.conv2, torch.Tensor(2, 3, 3), torch.Tensor(3, 2, 2))
   H.fails('conv3: invalid number of input planes (the input has 2, the kernel expects 3)',
      torch.conv3, torch.Tensor(2, 3, 3, 3), torch.Tensor(1, 3, 2, 2, 2))
   H.fails('conv2: invalid arguments: FloatTensor DoubleTensor\n'
      .. 'expected arguments: [*FloatTensor*] FloatTensor FloatTensor [(V|F)]', torch.conv2, x:float(), k)
   -- The forms are those of the input's type (this binder's rule for every function).
   H.fails('xcorr2: invalid arguments: DoubleTensor FloatTensor DoubleTensor\n'
      .. 'expected arguments: [*FloatTensor*] FloatTensor FloatTensor [(V|F)]',
      torch.xcorr2, torch.Tensor(), x:float(), k)
   H.fails('conv2: invalid arguments: DoubleTensor\n'
      .. 'expected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor [(V|F)]', torch.conv2, x)
   H.fails('conv2: invalid arguments: DoubleTensor number\n'
      .. 'expected arguments: [*DoubleTensor*] DoubleTensor DoubleTensor [(V|F)]', torch.conv2, x, 2)
   H.fails_containing(function() return torch.conv2(torch.HalfTensor(3, 3), torch.HalfTensor(2, 2)) end,
      'conv2: HalfTensor has no maths')
   local r = torch.Tensor(2, 2):fill(7)
   pcall(torch.conv2, r, x, torch.Tensor(4, 4))
   H.tensor(r, { 2, 2 }, { 7, 7, 7, 7 }, 'a failed call leaves res')
end

print('ok')
