-- optim.ConfusionMatrix: counts, accuracies and Torch's printout, against hand-computed values.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

-- The accuracies are kept in FloatTensors (as in Torch): a value as they hold it.
local function f32(v) return torch.FloatTensor { v }[1] end

local cm = optim.ConfusionMatrix({ 'cat', 'dog', 'bird' })
H.eq(cm.nclasses, 3, 'nclasses')
H.eq(torch.type(cm.mat), 'torch.LongTensor', 'mat type')
H.eq(torch.type(cm.valids), 'torch.FloatTensor', 'valids type')

-- Build mat = [[2 1 0] [0 3 1] [1 0 2]] (row: target, column: prediction) in each way add takes.
cm:add(1, 1)                                          -- class indices
cm:add(torch.Tensor { 0.9, 0.05, 0.05 }, 1)           -- scores and a class
cm:add(torch.Tensor { 0.2, 0.7, 0.1 }, torch.Tensor { 1, 0, 0 })   -- scores and one-hot
cm:add(2, 0)                                          -- no label: not counted
cm:batchAdd(torch.Tensor { 2, 3, 1 }, torch.Tensor { 2, 2, 0 })        -- classes; 0 skipped
cm:batchAdd(torch.Tensor { { 0.1, 0.8, 0.1 }, { 0.3, 0.6, 0.1 } },     -- scores
            torch.Tensor { { 0, 1, 0 }, { 0, 1, 0 } })                  -- one-hot rows
cm:batchAdd(torch.Tensor { { 1 }, { 3 }, { 3 } }, torch.Tensor { { 3 }, { 3 }, { 3 } })  -- n x 1
local expected = { { 2, 1, 0 }, { 0, 3, 1 }, { 1, 0, 2 } }
for t = 1, 3 do
   for p = 1, 3 do H.eq(cm.mat[t][p], expected[t][p], 'mat[' .. t .. '][' .. p .. ']') end
end

cm:updateValids()
-- Rows hold 3, 4 and 3 samples; columns 3, 4, 3.
H.near_all(cm.valids, { f32(2 / 3), f32(3 / 4), f32(2 / 3) }, 0, 'valids')
H.near_all(cm.unionvalids, { f32(2 / 4), f32(3 / 5), f32(2 / 4) }, 0, 'unionvalids')
H.near(cm.totalValid, 7 / 10, 1e-15, 'totalValid')
local average = (f32(2 / 3) + f32(3 / 4) + f32(2 / 3)) / 3
local averageUnion = (f32(0.5) + f32(0.6) + f32(0.5)) / 3
H.near(cm.averageValid, average, 0, 'averageValid')
H.near(cm.averageUnionValid, averageUnion, 0, 'averageUnionValid')

H.eq(tostring(cm), 'ConfusionMatrix:\n'
   .. '[[       2       1       0]   66.667% \t[class: cat]\n'
   .. ' [       0       3       1]   75.000% \t[class: dog]\n'
   .. ' [       1       0       2]]  66.667% \t[class: bird]\n'
   .. ' + average row correct: ' .. average * 100 .. '% \n'
   .. ' + average rowUcol correct (VOC measure): ' .. averageUnion * 100 .. '% \n'
   .. ' + global correct: ' .. 7 / 10 * 100 .. '%', 'printout')

-- FRR of class i: 1 - mat[i][i] / row i; FAR: the mean over the other rows j of mat[j][i] / row j.
local classFrrs, classFars, frrs, fars = cm:farFrr()
H.near_all(classFrrs, { 1 / 3, 1 / 4, 1 / 3 }, 1e-12, 'class FRRs')
H.near_all(classFars, { (0 + 1 / 3) / 2, (1 / 3 + 0) / 2, (1 / 4 + 0) / 2 }, 1e-12, 'class FARs')
H.near_all(frrs, classFrrs:totable(), 0, 'FRRs of the classes with samples')
H.near_all(fars, classFars:totable(), 0, 'FARs of the classes with samples')

-- Without class names, with an empty class (NaN accuracy, left out of the averages), and with
-- counts too wide for 8 columns.
local cm2 = optim.ConfusionMatrix(2)
cm2.mat[1][1] = 123456789
cm2.mat[1][2] = 1
H.eq(tostring(cm2), 'ConfusionMatrix:\n'
   .. '[[ 123456789         1]   ' .. string.format('%2.3f', f32(123456789 / 123456790) * 100) .. '% \n'
   .. ' [         0         0]]  ' .. string.format('%2.3f', 0 / 0) .. '% \n'
   .. ' + average row correct: ' .. f32(123456789 / 123456790) * 100 .. '% \n'
   .. ' + average rowUcol correct (VOC measure): ' .. f32(123456789 / 123456790) * 100 .. '% \n'
   .. ' + global correct: ' .. 123456789 / 123456790 * 100 .. '%', 'printout without names')
local _, _, frrs2 = cm2:farFrr()
H.eq(frrs2:nElement(), 1, 'FRRs only for classes with samples')

cm:zero()
H.eq(cm.mat:sum(), 0, 'zero() clears mat')
H.eq(cm.totalValid, 0, 'zero() clears totalValid')
H.eq(cm.valids:sum(), 0, 'zero() clears valids')

-- render: one block per cell, rows normalised, grid lines at 0.1.
cm:add(1, 1)
local image = cm:render('score', false, 4)
H.eq(image:size(1), 12, 'render height')
H.eq(image[1][1], 1, 'render cell')
H.near(image[4][1], 0.1, 1e-12, 'render grid')

H.errors(function() cm:add(4, 1) end,
   'optim.ConfusionMatrix:add: prediction 4 is not a class (1..3)')
H.errors(function() cm:add(1, 5) end, 'optim.ConfusionMatrix:add: target 5 is not a class (1..3)')
H.errors(function() cm:add(torch.zeros(2, 2), 1) end,
   'optim.ConfusionMatrix:add: prediction must be a class index or a 1-D tensor of scores')
H.errors(function() cm:batchAdd(torch.zeros(2, 2, 2), torch.ones(2)) end,
   'optim.ConfusionMatrix:batchAdd: predictions has invalid number of dimensions')
H.errors(function() cm:batchAdd(torch.Tensor { 1, 9 }, torch.Tensor { 1, 1 }) end,
   'optim.ConfusionMatrix:batchAdd: prediction 9 is not a class (1..3)')
H.errors(function() cm:batchAdd(torch.ones(3), torch.ones(2)) end,
   'optim.ConfusionMatrix:batchAdd: predictions and targets must have one row per sample')
H.errors(function() cm:render('alphabetical') end,
   'optim.ConfusionMatrix:render: sort mode must be one of: score | occurrence')
H.errors(function() optim.ConfusionMatrix(0) end, 'optim.ConfusionMatrix: bad argument #1')

print('ok')
