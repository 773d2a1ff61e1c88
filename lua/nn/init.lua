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
   'utils', 'im2col', 'pooling', 'sampling', 'Module', 'Container', 'Sequential', 'Criterion', 'Jacobian',
} do
   load(name)
end

-- Every other module, in alphabetical order (the list is checked against the folder by a test).
for _, name in ipairs {
   'BatchNormalization', 'CAddTable', 'ClassNLLCriterion', 'Concat', 'ConcatTable', 'CrossEntropyCriterion',
   'Dropout', 'FeatureLPPooling', 'Identity', 'Linear', 'LogSoftMax', 'LookupTable', 'MSECriterion', 'Max',
   'PixelShuffle', 'ReLU', 'Reshape', 'Sigmoid', 'SoftMax', 'SpatialAdaptiveAveragePooling',
   'SpatialAdaptiveMaxPooling', 'SpatialAutoCropMSECriterion', 'SpatialAveragePooling', 'SpatialBatchNormalization',
   'SpatialClassNLLCriterion', 'SpatialContrastiveNormalization', 'SpatialConvolution', 'SpatialConvolutionLocal',
   'SpatialConvolutionMM', 'SpatialConvolutionMap', 'SpatialCrossMapLRN', 'SpatialDepthWiseConvolution',
   'SpatialDilatedConvolution', 'SpatialDilatedMaxPooling', 'SpatialDivisiveNormalization', 'SpatialDropout',
   'SpatialFractionalMaxPooling', 'SpatialFullConvolution', 'SpatialFullConvolutionMap', 'SpatialLPPooling',
   'SpatialLogSoftMax', 'SpatialMaxPooling', 'SpatialMaxUnpooling', 'SpatialReflectionPadding',
   'SpatialReplicationPadding', 'SpatialSoftMax', 'SpatialSubSampling', 'SpatialSubtractiveNormalization',
   'SpatialUpSamplingBilinear', 'SpatialUpSamplingNearest', 'SpatialZeroPadding', 'Tanh', 'TemporalConvolution',
   'TemporalDynamicKMaxPooling', 'TemporalMaxPooling', 'TemporalRowConvolution', 'TemporalSubSampling', 'Threshold',
   'UpSampling', 'View', 'VolumetricAveragePooling', 'VolumetricBatchNormalization', 'VolumetricConvolution',
   'VolumetricDilatedConvolution', 'VolumetricDilatedMaxPooling', 'VolumetricDropout',
   'VolumetricFractionalMaxPooling', 'VolumetricFullConvolution', 'VolumetricMaxPooling', 'VolumetricMaxUnpooling',
   'VolumetricReplicationPadding',
} do
   load(name)
end

return nn
