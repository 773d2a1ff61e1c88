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
-- The passes the modules share (nn/engine/: kernels, windows, convolution, pooling, ...) are
-- required by the modules that use them.
for _, name in ipairs {
   'utils', 'Module', 'Container', 'Sequential', 'Criterion', 'Jacobian', 'SparseJacobian', 'hessian',
} do
   load(name)
end

-- Every other module, in alphabetical order (the list is checked against the folder by a test).
for _, name in ipairs {
   'Abs', 'AbsCriterion', 'Add', 'AddConstant', 'BCECriterion', 'BatchNormalization', 'Bilinear', 'Bottle',
   'CAdd', 'CAddTable', 'CAddTensorTable', 'CDivTable', 'CMaxTable', 'CMinTable', 'CMul', 'CMulTable', 'CReLU',
   'CSubTable', 'Clamp', 'ClassNLLCriterion', 'ClassSimplexCriterion', 'Collapse', 'Concat', 'ConcatTable',
   'Constant', 'Contiguous', 'Convert', 'Copy', 'Cosine', 'CosineDistance', 'CosineEmbeddingCriterion',
   'CriterionTable', 'CrossEntropyCriterion', 'Decorator', 'DepthConcat', 'DistKLDivCriterion',
   'DistanceRatioCriterion', 'DontCast', 'DotProduct', 'Dropout', 'ELU', 'Euclidean', 'Exp', 'FeatureLPPooling',
   'FlattenTable', 'GatedLinearUnit', 'GradientReversal', 'HardShrink', 'HardTanh', 'HingeEmbeddingCriterion',
   'Identity', 'Index', 'IndexLinear', 'JoinTable', 'Kmeans', 'L1Cost', 'L1HingeEmbeddingCriterion', 'L1Penalty',
   'LeakyReLU', 'Linear', 'LinearWeightNorm', 'Log', 'LogSigmoid', 'LogSoftMax', 'LookupTable', 'MM',
   'MSECriterion', 'MV', 'MapTable', 'MarginCriterion', 'MarginRankingCriterion', 'MaskedSelect', 'Max', 'Mean',
   'Min', 'MixtureTable', 'ModuleCriterion', 'Mul', 'MulConstant', 'MultiCriterion', 'MultiLabelMarginCriterion',
   'MultiLabelSoftMarginCriterion', 'MultiMarginCriterion', 'NaN', 'Narrow', 'NarrowTable', 'Normalize', 'OneHot',
   'PReLU', 'Padding', 'PairwiseDistance', 'Parallel', 'ParallelCriterion', 'ParallelTable', 'PartialLinear',
   'PixelShuffle', 'Power', 'Profile', 'RReLU', 'ReLU', 'ReLU6', 'Replicate', 'Reshape', 'Select', 'SelectTable',
   'Sigmoid', 'SmoothL1Criterion', 'SoftMarginCriterion', 'SoftMax', 'SoftMin', 'SoftPlus', 'SoftShrink',
   'SoftSign', 'SparseLinear', 'SpatialAdaptiveAveragePooling', 'SpatialAdaptiveMaxPooling',
   'SpatialAutoCropMSECriterion', 'SpatialAveragePooling', 'SpatialBatchNormalization',
   'SpatialClassNLLCriterion', 'SpatialContrastiveNormalization', 'SpatialConvolution', 'SpatialConvolutionLocal',
   'SpatialConvolutionMM', 'SpatialConvolutionMap', 'SpatialCrossMapLRN', 'SpatialDepthWiseConvolution',
   'SpatialDilatedConvolution', 'SpatialDilatedMaxPooling', 'SpatialDivisiveNormalization', 'SpatialDropout',
   'SpatialFractionalMaxPooling', 'SpatialFullConvolution', 'SpatialFullConvolutionMap', 'SpatialLPPooling',
   'SpatialLogSoftMax', 'SpatialMaxPooling', 'SpatialMaxUnpooling', 'SpatialReflectionPadding',
   'SpatialReplicationPadding', 'SpatialSoftMax', 'SpatialSubSampling', 'SpatialSubtractiveNormalization',
   'SpatialUpSamplingBilinear', 'SpatialUpSamplingNearest', 'SpatialZeroPadding', 'SplitTable', 'Sqrt', 'Square',
   'Squeeze', 'StochasticGradient', 'Sum', 'Tanh', 'TemporalConvolution', 'TemporalDynamicKMaxPooling',
   'TemporalMaxPooling', 'TemporalRowConvolution', 'TemporalSubSampling', 'Threshold', 'Transpose', 'Unsqueeze',
   'UpSampling', 'View', 'VolumetricAveragePooling', 'VolumetricBatchNormalization', 'VolumetricConvolution',
   'VolumetricDilatedConvolution', 'VolumetricDilatedMaxPooling', 'VolumetricDropout',
   'VolumetricFractionalMaxPooling', 'VolumetricFullConvolution', 'VolumetricMaxPooling',
   'VolumetricMaxUnpooling', 'VolumetricReplicationPadding', 'WeightNorm', 'WeightedEuclidean',
   'WeightedMSECriterion', 'WhiteNoise', 'ZeroGrad', 'ZipTable', 'ZipTableOneToMany',
} do
   load(name)
end

return nn
