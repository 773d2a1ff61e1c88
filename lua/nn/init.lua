-- The `nn` package: modules, containers and criterions with Torch7's nn API, in Lua over the
-- tensor library. Every class is registered when the package loads (as the original did), so a
-- model saved by either Torch reads back here with its classes.

require 'torch'

local nn = rawget(_G, 'nn')
if type(nn) ~= 'table' then nn = {} end
rawset(_G, 'nn', nn)
package.loaded.nn = nn

-- Loads lua/nn/<name>.lua (embedded in th, or beside this file in a luarocks tree).
local function load(name)
   require('nn.' .. name)
end

-- The base classes first; a module whose parent is another module requires its parent itself.
for _, name in ipairs {
   'utils', 'im2col', 'Module', 'Container', 'Sequential', 'Criterion', 'Jacobian', 'SparseJacobian', 'hessian',
} do
   load(name)
end

-- Every other module, in alphabetical order (the list is checked against the folder by a test).
for _, name in ipairs {
   'Abs', 'Add', 'AddConstant', 'BatchNormalization', 'Bilinear', 'Bottle', 'CAdd', 'CAddTable', 'CMul',
   'CReLU', 'Clamp', 'ClassNLLCriterion', 'Collapse', 'Concat', 'ConcatTable', 'Constant', 'Contiguous',
   'Convert', 'Copy', 'Cosine', 'CrossEntropyCriterion', 'Decorator', 'DepthConcat', 'DontCast', 'Dropout',
   'ELU', 'Euclidean', 'Exp', 'GatedLinearUnit', 'GradientReversal', 'HardShrink', 'HardTanh', 'Identity',
   'Index', 'IndexLinear', 'Kmeans', 'L1Penalty', 'LeakyReLU', 'Linear', 'LinearWeightNorm', 'Log',
   'LogSigmoid', 'LogSoftMax', 'LookupTable', 'MM', 'MSECriterion', 'MV', 'MapTable', 'MaskedSelect', 'Max',
   'Mean', 'Min', 'Mul', 'MulConstant', 'NaN', 'Narrow', 'Normalize', 'OneHot', 'PReLU', 'Padding',
   'Parallel', 'ParallelTable', 'PartialLinear', 'Power', 'Profile', 'RReLU', 'ReLU', 'ReLU6', 'Replicate',
   'Reshape', 'Sigmoid', 'SoftMax', 'SoftMin', 'SoftPlus', 'SoftShrink', 'SoftSign', 'SparseLinear',
   'SpatialBatchNormalization', 'SpatialConvolution', 'SpatialMaxPooling', 'SpatialZeroPadding', 'Sqrt',
   'Square', 'Squeeze', 'Sum', 'Tanh', 'TemporalConvolution', 'Threshold', 'Unsqueeze', 'View', 'WeightNorm',
   'WeightedEuclidean', 'WhiteNoise', 'ZeroGrad',
} do
   load(name)
end

return nn
