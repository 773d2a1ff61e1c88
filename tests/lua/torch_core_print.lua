-- Torch's text format for tensors and storages, compared as whole strings: integer, fixed and
-- e-notation formats, scale factors, 80-column wrapping with "Columns a to b", blocks above
-- two dimensions, every type, empty tensors and storages.
local H = dofile('torch_test_helpers.lua')

-- A tensor of type T with the given sizes and row-major values.
local function mk(T, sizes, values)
   return torch[T .. 'Tensor'](torch[T .. 'Storage'](values), 1, torch.LongStorage(sizes))
end

local function expect(what, t, text)
   H.eq(tostring(t), text, what)
end

expect("1-D integers", mk('Double', {3}, {1, 2, 3}),
   " 1\n 2\n 3\n[torch.DoubleTensor of size 3]\n")
expect("1-D negative integers", mk('Double', {2}, {-1, 10}),
   " -1\n 10\n[torch.DoubleTensor of size 2]\n")
expect("zeros", mk('Double', {2}, {0, 0}),
   " 0\n 0\n[torch.DoubleTensor of size 2]\n")
expect("2-D integers", mk('Double', {2, 3}, {1, 2, 3, 4, 5, 6}),
   " 1  2  3\n 4  5  6\n[torch.DoubleTensor of size 2x3]\n")
expect("3-D", mk('Double', {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
   "(1,.,.) = \n  1  2\n  3  4\n\n(2,.,.) = \n  5  6\n  7  8\n[torch.DoubleTensor of size 2x2x2]\n")
expect("4-D blocks, first index fastest", mk('Double', {2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
   "(1,1,.,.) = \n  1  2\n\n(2,1,.,.) = \n  5  6\n\n(1,2,.,.) = \n  3  4\n\n(2,2,.,.) = \n  7  8\n[torch.DoubleTensor of size 2x2x1x2]\n")
expect("fractions", mk('Double', {2}, {0.5, 1.25}),
   " 0.5000\n 1.2500\n[torch.DoubleTensor of size 2]\n")
expect("negative fraction", mk('Double', {2}, {-1.5, 2}),
   "-1.5000\n 2.0000\n[torch.DoubleTensor of size 2]\n")
expect("fractions below one", mk('Double', {2}, {0.25, -0.5}),
   " 0.2500\n-0.5000\n[torch.DoubleTensor of size 2]\n")
expect("wider fractions", mk('Double', {2}, {123.5, 1}),
   " 123.5000\n   1.0000\n[torch.DoubleTensor of size 2]\n")
expect("scale factor for large values", mk('Double', {2}, {123456.5, 234567.25}),
   "100000 *\n 1.2346\n 2.3457\n[torch.DoubleTensor of size 2]\n")
expect("scale factor for small values", mk('Double', {2}, {0.001, 0.002}),
   "0.001 *\n 1.0000\n 2.0000\n[torch.DoubleTensor of size 2]\n")
expect("2-D scale factor", mk('Double', {2, 2}, {123456.5, 200000, 300000, 400000}),
   "100000 *\n  1.2346  2.0000\n  3.0000  4.0000\n[torch.DoubleTensor of size 2x2]\n")
expect("e-notation for a wide range", mk('Double', {2}, {1e-05, 1}),
   " 1.0000e-05\n 1.0000e+00\n[torch.DoubleTensor of size 2]\n")
expect("e-notation with three-digit exponents", mk('Double', {2}, {1e-120, 0.5}),
   " 1.0000e-120\n  5.0000e-01\n[torch.DoubleTensor of size 2]\n")
expect("e-notation for integers above 1e9", mk('Double', {2}, {10000000000, 1}),
   " 1.0000e+10\n 1.0000e+00\n[torch.DoubleTensor of size 2]\n")
expect("2-D e-notation", mk('Double', {2, 2}, {1e-05, 2, 3, 4}),
   " 1.0000e-05  2.0000e+00\n 3.0000e+00  4.0000e+00\n[torch.DoubleTensor of size 2x2]\n")
expect("3-D with a scale factor", mk('Double', {2, 2, 1}, {0.001, 0.002, 0.003, 0.004}),
   "(1,.,.) = \n 0.001 *\n   1.0000\n   2.0000\n\n(2,.,.) = \n 0.001 *\n   3.0000\n   4.0000\n[torch.DoubleTensor of size 2x2x1]\n")
expect("integer columns wrap at 80 characters", mk('Double', {2, 30}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60}),
   "Columns 1 to 20\n  1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17  18  19  20\n 31  32  33  34  35  36  37  38  39  40  41  42  43  44  45  46  47  48  49  50\n\nColumns 21 to 30\n 21  22  23  24  25  26  27  28  29  30\n 51  52  53  54  55  56  57  58  59  60\n[torch.DoubleTensor of size 2x30]\n")
expect("fraction columns wrap", mk('Double', {3, 11}, {1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5, 13.5, 14.5, 15.5, 16.5, 17.5, 18.5, 19.5, 20.5, 21.5, 22.5, 23.5, 24.5, 25.5, 26.5, 27.5, 28.5, 29.5, 30.5, 31.5, 32.5, 33.5}),
   "Columns 1 to 8\n  1.5000   2.5000   3.5000   4.5000   5.5000   6.5000   7.5000   8.5000\n 12.5000  13.5000  14.5000  15.5000  16.5000  17.5000  18.5000  19.5000\n 23.5000  24.5000  25.5000  26.5000  27.5000  28.5000  29.5000  30.5000\n\nColumns 9 to 11\n  9.5000  10.5000  11.5000\n 20.5000  21.5000  22.5000\n 31.5000  32.5000  33.5000\n[torch.DoubleTensor of size 3x11]\n")
expect("exactly ten fraction columns fit", mk('Double', {1, 10}, {1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5}),
   "Columns 1 to 8\n  1.5000   2.5000   3.5000   4.5000   5.5000   6.5000   7.5000   8.5000\n\nColumns 9 to 10\n  9.5000  10.5000\n[torch.DoubleTensor of size 1x10]\n")
expect("3-D blocks wrap with the indent", mk('Double', {2, 1, 25}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50}),
   "(1,.,.) = \n Columns 1 to 19\n   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17  18  19\n\nColumns 20 to 25\n  20  21  22  23  24  25\n\n(2,.,.) = \n Columns 1 to 19\n  26  27  28  29  30  31  32  33  34  35  36  37  38  39  40  41  42  43  44\n\nColumns 20 to 25\n  45  46  47  48  49  50\n[torch.DoubleTensor of size 2x1x25]\n")
expect("wrapped columns with a scale factor", mk('Double', {2, 12}, {1000000.5, 2000001, 3000001.5, 4000002, 5000002.5, 6000003, 7000003.5, 8000004, 9000004.5, 10000005, 11000005.5, 12000006, 13000006.5, 14000007, 15000007.5, 16000008, 17000008.5, 18000009, 19000009.5, 20000010, 21000010.5, 22000011, 23000011.5, 24000012}),
   "Columns 1 to 10\n1e+07 *\n  0.1000  0.2000  0.3000  0.4000  0.5000  0.6000  0.7000  0.8000  0.9000  1.0000\n  1.3000  1.4000  1.5000  1.6000  1.7000  1.8000  1.9000  2.0000  2.1000  2.2000\n\nColumns 11 to 12\n1e+07 *\n  1.1000  1.2000\n  2.3000  2.4000\n[torch.DoubleTensor of size 2x12]\n")
expect("FloatTensor", mk('Float', {2}, {0.5, 2}),
   " 0.5000\n 2.0000\n[torch.FloatTensor of size 2]\n")
expect("ByteTensor", mk('Byte', {2, 2}, {0, 255, 1, 2}),
   "   0  255\n   1    2\n[torch.ByteTensor of size 2x2]\n")
expect("CharTensor", mk('Char', {3}, {-128, 0, 127}),
   "-128\n   0\n 127\n[torch.CharTensor of size 3]\n")
expect("ShortTensor", mk('Short', {1}, {-300}),
   "-300\n[torch.ShortTensor of size 1]\n")
expect("IntTensor", mk('Int', {2}, {7, -7}),
   " 7\n-7\n[torch.IntTensor of size 2]\n")
expect("LongTensor", mk('Long', {2}, {123456789, 1}),
   " 123456789\n         1\n[torch.LongTensor of size 2]\n")
expect("infinity among integers", mk('Double', {2}, {1, math.huge}),
   " 1.0000e+00\n        inf\n[torch.DoubleTensor of size 2]\n")
expect("infinity among fractions", mk('Double', {2}, {0.5, -math.huge}),
   "  5.0000e-01\n        -inf\n[torch.DoubleTensor of size 2]\n")

-- Views print their elements in logical order.
expect('transposed view', torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }):t(),
   " 1  4\n 2  5\n 3  6\n[torch.DoubleTensor of size 3x2]\n")
expect('narrowed view', torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } }):narrow(2, 2, 2),
   " 2  3\n 5  6\n[torch.DoubleTensor of size 2x2]\n")
expect('expanded view', torch.Tensor({ 1, 2 }):view(2, 1):expand(2, 3),
   " 1  1  1\n 2  2  2\n[torch.DoubleTensor of size 2x3]\n")

-- No dimension.
expect('empty DoubleTensor', torch.Tensor(), "[torch.DoubleTensor with no dimension]\n")
expect('empty ByteTensor', torch.ByteTensor(), "[torch.ByteTensor with no dimension]\n")
expect('T(0)', torch.FloatTensor(0), "[torch.FloatTensor with no dimension]\n")

-- NaN switches to %f with every column on one line, and prints as "nan" whatever its sign bit
-- (0/0 has it set on x86; C's printf would write "-nan").
local nan = 0 / 0
H.eq(tostring(torch.Tensor({ -nan })), "nan\n[torch.DoubleTensor of size 1]\n", 'NaN with either sign')
local with_nan = tostring(torch.Tensor({ 1, nan }))
H.eq(with_nan, "1.000000\nnan\n[torch.DoubleTensor of size 2]\n", 'NaN in 1-D')
local wide = torch.Tensor(1, 12):fill(1.5)
wide[1][1] = nan
H.eq(tostring(wide),
   "nan 1.500000 1.500000 1.500000 1.500000 1.500000 1.500000 1.500000 1.500000 1.500000 1.500000 1.500000\n" ..
   "[torch.DoubleTensor of size 1x12]\n", 'NaN in 2-D: no column wrapping')

-- Storages: one value per line, the same number formats.
expect('DoubleStorage', torch.DoubleStorage({ 1, 2.5 }), " 1.0000\n 2.5000\n[torch.DoubleStorage of size 2]\n")
expect('LongStorage', torch.LongStorage({ 3, 40 }), "  3\n 40\n[torch.LongStorage of size 2]\n")
expect('ByteStorage', torch.ByteStorage({ 7 }), " 7\n[torch.ByteStorage of size 1]\n")
expect('storage scale factor', torch.FloatStorage({ 0.001, 0.002 }), "0.001 *\n 1.0000\n 2.0000\n[torch.FloatStorage of size 2]\n")
expect('empty storage', torch.DoubleStorage(), "[torch.DoubleStorage of size 0]\n")
expect('size() of a tensor', torch.Tensor(2, 3):size(), " 2\n 3\n[torch.LongStorage of size 2]\n")

-- The class's __tostring__ is what tostring uses, and it can be replaced.
local saved = torch.DoubleTensor.__tostring__
torch.DoubleTensor.__tostring__ = function() return 'custom' end
H.eq(tostring(torch.Tensor(1)), 'custom', 'replaced __tostring__')
torch.DoubleTensor.__tostring__ = saved
H.eq(tostring(torch.Tensor({ 1 })), " 1\n[torch.DoubleTensor of size 1]\n", 'restored __tostring__')

print('ok')
