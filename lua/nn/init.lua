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
   'utils', 'im2col', 'Module', 'Container', 'Sequential', 'Criterion', 'Jacobian',
} do
   load(name)
end

-- Every other module, in alphabetical order (the list is checked against the folder by a test).
for _, name in ipairs {
   'AbsCriterion', 'BCECriterion', 'BatchNormalization', 'CAddTable', 'CAddTensorTable', 'CDivTable',
   'CMaxTable', 'CMinTable', 'CMulTable', 'CSubTable', 'ClassNLLCriterion', 'ClassSimplexCriterion', 'Concat',
   'ConcatTable', 'CosineDistance', 'CosineEmbeddingCriterion', 'CriterionTable', 'CrossEntropyCriterion',
   'DistKLDivCriterion', 'DistanceRatioCriterion', 'DotProduct', 'Dropout', 'FlattenTable',
   'HingeEmbeddingCriterion', 'Identity', 'JoinTable', 'L1Cost', 'L1HingeEmbeddingCriterion', 'Linear',
   'LogSoftMax', 'LookupTable', 'MSECriterion', 'MarginCriterion', 'MarginRankingCriterion', 'Max',
   'MixtureTable', 'ModuleCriterion', 'MultiCriterion', 'MultiLabelMarginCriterion',
   'MultiLabelSoftMarginCriterion', 'MultiMarginCriterion', 'NarrowTable', 'PairwiseDistance',
   'ParallelCriterion', 'ReLU', 'Reshape', 'SelectTable', 'Sigmoid', 'SmoothL1Criterion', 'SoftMarginCriterion',
   'SoftMax', 'SpatialBatchNormalization', 'SpatialConvolution', 'SpatialMaxPooling', 'SpatialZeroPadding',
   'SplitTable', 'StochasticGradient', 'Tanh', 'TemporalConvolution', 'Threshold', 'View',
   'WeightedMSECriterion', 'ZipTable', 'ZipTableOneToMany',
} do
   load(name)
end

return nn
