-- The table layers: forward on small cases worked by hand, the gradient structure for nested and
-- variable-length tables, gradients against finite differences (through SplitTable/JoinTable, as
-- nn's own tests do, since the Jacobian checks take tensors), type conversion and errors.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

local function errors(f, pattern, what)
   local ok, err = pcall(f)
   H.check(not ok, '%s: no error', what)
   H.check(tostring(err):find(pattern, 1, true), '%s: error %q does not mention %q', what, tostring(err), pattern)
end

-- A module on a table of n tensors, fed by splitting a tensor along its first dimension.
local function split(module)
   return nn.Sequential():add(nn.SplitTable(1)):add(module)
end

H.case('CAddTable, CSubTable, CMulTable, CDivTable', function()
   local a, b, c = torch.Tensor { 1, 2 }, torch.Tensor { 3, 5 }, torch.Tensor { 2, 4 }
   local go = torch.Tensor { 1, -1 }
   H.close(nn.CAddTable():forward({ a, b, c }), torch.Tensor { 6, 11 }, 0, 'CAddTable')
   local g = nn.CAddTable():backward({ a, b, c }, go)
   H.check(#g == 3, 'CAddTable: %d gradients', #g)
   H.close(g[3], go, 0, 'CAddTable gradient')
   -- In place: the output is the first input's storage.
   local ip = nn.CAddTable(true)
   local first = a:clone()
   ip:forward({ first, b })
   H.close(first, torch.Tensor { 4, 7 }, 0, 'CAddTable in place')
   -- A shorter table next time leaves no stale gradient behind.
   local m = nn.CAddTable()
   m:backward({ a, b, c }, go)
   H.check(#m:backward({ a, b }, go) == 2, 'CAddTable: stale gradients kept')

   H.close(nn.CSubTable():forward({ a, b }), torch.Tensor { -2, -3 }, 0, 'CSubTable')
   H.close(nn.CSubTable():backward({ a, b }, go)[2], torch.Tensor { -1, 1 }, 0, 'CSubTable gradient')
   H.close(nn.CMulTable():forward({ a, b, c }), torch.Tensor { 6, 40 }, 0, 'CMulTable')
   -- A zero in one input still gives the others' product to it.
   local gz = nn.CMulTable():backward({ torch.Tensor { 0, 2 }, b }, go)
   H.close(gz[1], torch.Tensor { 3, -5 }, 0, 'CMulTable gradient at a zero')
   H.close(gz[2], torch.Tensor { 0, -2 }, 0, 'CMulTable gradient of the other')
   H.close(nn.CDivTable():forward({ b, c }), torch.Tensor { 1.5, 1.25 }, 0, 'CDivTable')
   local gd = nn.CDivTable():backward({ b, c }, go)
   H.close(gd[1], torch.Tensor { 0.5, -0.25 }, 1e-12, 'CDivTable gradient of the numerator')
   H.close(gd[2], torch.Tensor { -3 / 4, 5 / 16 }, 1e-12, 'CDivTable gradient of the denominator')

   H.gradients(split(nn.CAddTable()), torch.Tensor(3, 2, 4), 'CAddTable')
   H.gradients(split(nn.CSubTable()), torch.Tensor(2, 3, 2), 'CSubTable')
   H.gradients(split(nn.CMulTable()), torch.Tensor(3, 5), 'CMulTable')
   H.gradients(split(nn.CDivTable()), torch.Tensor(2, 5), 'CDivTable', nil, 0.5, 2)
   errors(function() nn.CSubTable():forward(a) end, 'nn.CSubTable', 'CSubTable of a tensor')
   errors(function() nn.CDivTable():forward({ a }) end, 'nn.CDivTable', 'CDivTable of one tensor')
end)

H.case('CMaxTable, CMinTable', function()
   local input = { torch.Tensor { { 1, 3 }, { 2, 4 } }, torch.Tensor { { 4, 2 }, { 3, 1 } } }
   local max, min = nn.CMaxTable(), nn.CMinTable()
   H.close(max:forward(input), torch.Tensor { { 4, 3 }, { 3, 4 } }, 0, 'CMaxTable')
   H.close(min:forward(input), torch.Tensor { { 1, 2 }, { 2, 1 } }, 0, 'CMinTable')
   -- gradOutput is read in order whatever its shape.
   local go = torch.Tensor { 5, 6, 7, 8 }
   local g = max:backward(input, go)
   H.close(g[1], torch.Tensor { { 0, 6 }, { 0, 8 } }, 0, 'CMaxTable gradient 1')
   H.close(g[2], torch.Tensor { { 5, 0 }, { 7, 0 } }, 0, 'CMaxTable gradient 2')
   g = min:backward(input, go)
   H.close(g[1], torch.Tensor { { 5, 0 }, { 7, 0 } }, 0, 'CMinTable gradient 1')
   -- Ties go to the first input.
   local tied = nn.CMaxTable()
   tied:forward({ torch.Tensor { 1 }, torch.Tensor { 1 } })
   local tie = tied:backward({ torch.Tensor { 1 }, torch.Tensor { 1 } }, torch.Tensor { 1 })
   H.close(tie[1], torch.Tensor { 1 }, 0, 'tie to the first')
   H.close(tie[2], torch.Tensor { 0 }, 0, 'not to the second')
   H.gradients(split(nn.CMaxTable()), torch.Tensor(3, 4, 2), 'CMaxTable')
   H.gradients(split(nn.CMinTable()), torch.Tensor(3, 4, 2), 'CMinTable')
   max:float()
   local gf = max:backward({ input[1]:float(), input[2]:float() }, go:float())
   H.close(gf[1], torch.Tensor { { 0, 6 }, { 0, 8 } }, 0, 'float CMaxTable')
   errors(function() max:forward({ torch.randn(2), torch.randn(3) }) end, 'same size', 'CMaxTable sizes')
end)

H.case('JoinTable and SplitTable', function()
   local a, b = torch.Tensor { { 1, 2 } }, torch.Tensor { { 3, 4 }, { 5, 6 } }
   H.close(nn.JoinTable(1):forward({ a, b }), torch.Tensor { { 1, 2 }, { 3, 4 }, { 5, 6 } }, 0, 'join rows')
   H.close(nn.JoinTable(-1):forward({ b, b }), torch.Tensor { { 3, 4, 3, 4 }, { 5, 6, 5, 6 } }, 0, 'join last')
   local g = nn.JoinTable(1):backward({ a, b }, torch.Tensor { { 1, 1 }, { 2, 2 }, { 3, 3 } })
   H.close(g[1], torch.Tensor { { 1, 1 } }, 0, 'join gradient 1')
   H.close(g[2], torch.Tensor { { 2, 2 }, { 3, 3 } }, 0, 'join gradient 2')
   -- With nInputDims: a batch joins one dimension down.
   local t = torch.rand(3, 4, 5)
   for d = 1, 2 do
      H.check(nn.JoinTable(d, 2):forward({ t, t }):size(d + 1) == t:size(d + 1) * 2, 'batch join %d', d)
      H.check(nn.JoinTable(d, 2):forward({ t[1], t[1] }):size(d) == t:size(d + 1) * 2, 'single join %d', d)
   end
   for d = 1, 3 do
      H.check(#nn.SplitTable(d):forward(t) == t:size(d), 'split %d', d)
   end
   H.check(#nn.SplitTable(1, 2):forward(t) == 4, 'batch split')
   H.check(#nn.SplitTable(-3):forward(torch.rand(2, 3, 4, 5)) == 3, 'negative split')
   local s = nn.SplitTable(2):forward(b)
   H.close(s[2], torch.Tensor { 4, 6 }, 0, 'split columns')
   H.gradients(nn.Sequential():add(nn.SplitTable(2)):add(nn.JoinTable(1)), torch.Tensor(3, 4, 2), 'Split/Join')
   H.gradients(nn.Sequential():add(nn.SplitTable(1, 1)):add(nn.JoinTable(1, 1)), torch.Tensor(3, 2, 4),
      'Split/Join batch')
   local j = nn.JoinTable(1):float()
   H.check(torch.type(j:forward({ a:float(), b:float() })) == 'torch.FloatTensor', 'float join')
   errors(function() nn.JoinTable(1):forward({ a, torch.randn(2, 3) }) end, 'nn.JoinTable', 'join sizes')
   errors(function() nn.JoinTable(3):forward({ a, b }) end, 'out of range', 'join dimension')
   errors(function() nn.SplitTable(3):forward(b) end, 'out of range', 'split dimension')
end)

H.case('SelectTable', function()
   local input = { torch.Tensor { 1 }, torch.Tensor { 2, 3 }, { torch.Tensor { 4 }, { torch.Tensor { 5 } } } }
   local m = nn.SelectTable(2)
   H.check(m:forward(input) == input[2], 'selects by reference')
   local g = m:backward(input, torch.Tensor { 7, 8 })
   H.close(g[2], torch.Tensor { 7, 8 }, 0, 'gradient at the index')
   H.close(g[1], torch.zeros(1), 0, 'zero elsewhere')
   H.close(g[3][2][1], torch.zeros(1), 0, 'nested zeros')
   local last = nn.SelectTable(-1)
   H.check(last:forward(input) == input[3], 'negative index')
   g = last:backward(input, { torch.Tensor { 9 }, { torch.Tensor { 10 } } })
   H.close(g[3][2][1], torch.Tensor { 10 }, 0, 'table gradient')
   -- Tables that shrink leave no stale entries.
   g = last:backward({ torch.Tensor { 1 }, torch.Tensor { 2 } }, torch.Tensor { 3 })
   H.check(#g == 2 and g[3] == nil, 'stale gradient entries')
   H.check(tostring(m) == 'nn.SelectTable(2)', 'tostring %s', tostring(m))
   H.gradients(nn.Sequential():add(nn.SplitTable(1)):add(nn.SelectTable(2)), torch.Tensor(3, 4), 'SelectTable')
   errors(function() m:forward({ torch.Tensor(1) }) end, 'does not exist', 'missing index')
end)

H.case('NarrowTable', function()
   local x = { torch.Tensor { 1 }, torch.Tensor { 2 }, torch.Tensor { 3 }, torch.Tensor { 4 } }
   local m = nn.NarrowTable(2, 2)
   local out = m:forward(x)
   H.check(#out == 2 and out[1] == x[2] and out[2] == x[3], 'narrowed')
   local g = m:backward(x, { torch.Tensor { 5 }, torch.Tensor { 6 } })
   H.check(#g == 4, '%d gradients', #g)
   H.close(g[1], torch.zeros(1), 0, 'zero before')
   H.close(g[3], torch.Tensor { 6 }, 0, 'passed through')
   H.close(g[4], torch.zeros(1), 0, 'zero after')
   H.check(#nn.NarrowTable(3):forward(x) == 1, 'default length')
   H.gradients(nn.Sequential():add(nn.SplitTable(1)):add(nn.NarrowTable(2, 2)):add(nn.JoinTable(1)),
      torch.Tensor(4, 3), 'NarrowTable')
   errors(function() m:forward({ x[1], x[2] }) end, 'nn.NarrowTable', 'too short')
   errors(function() nn.NarrowTable() end, 'offset', 'no offset')
end)

H.case('FlattenTable', function()
   local a, b, c, d = torch.rand(1), torch.rand(2), torch.rand(3), torch.rand(4)
   local input = { a, { b, { c } }, d }
   local m = nn.FlattenTable()
   local out = m:forward(input)
   H.check(#out == 4 and out[1] == a and out[2] == b and out[3] == c and out[4] == d, 'flattened in order')
   local go = { torch.rand(1), torch.rand(2), torch.rand(3), torch.rand(4) }
   local g = m:backward(input, go)
   H.check(g[1] == go[1] and g[2][1] == go[2] and g[2][2][1] == go[3] and g[3] == go[4], 'gradient structure')
   -- Unchanged input: the same tables; a changed structure: rebuilt.
   local map, output = m.input_map, m.output
   m:forward(input)
   H.check(m.input_map == map and m.output == output, 'rebuilt for the same input')
   input[2][3] = torch.rand(5)
   H.check(#m:forward(input) == 5 and m.output ~= output, 'not rebuilt for a new element')
   H.check(m:float() == m, 'type returns the module')
   local net = nn.Sequential():add(nn.SplitTable(1)):add(nn.ConcatTable():add(nn.Identity()):add(nn.Identity()))
      :add(nn.FlattenTable()):add(nn.JoinTable(1))
   H.gradients(net, torch.Tensor(2, 3), 'FlattenTable')
   errors(function() m:forward(a) end, 'nn.FlattenTable', 'not a table')
end)

H.case('DotProduct, CosineDistance, PairwiseDistance', function()
   local a, b = torch.Tensor { 1, 2, 2 }, torch.Tensor { 3, 0, 4 }
   H.close(nn.DotProduct():forward({ a, b }), torch.Tensor { 11 }, 0, 'dot')
   local g = nn.DotProduct():backward({ a, b }, torch.Tensor { 2 })
   H.close(g[1], b * 2, 0, 'dot gradient')
   H.check(g[1]:dim() == 1, 'vector gradient has %d dimensions', g[1]:dim())
   H.close(nn.CosineDistance():forward({ a, b }), torch.Tensor { 11 / 15 }, 1e-12, 'cosine')
   H.close(nn.PairwiseDistance():forward({ a, b }), torch.Tensor { math.sqrt(4 + 4 + 4) }, 1e-12, 'L2')
   H.close(nn.PairwiseDistance(1):forward({ a, b }), torch.Tensor { 6 }, 1e-12, 'L1')
   local ab = torch.Tensor { { 1, 2, 2 }, { 0, 1, 0 } }
   local bb = torch.Tensor { { 3, 0, 4 }, { 0, 2, 0 } }
   H.close(nn.DotProduct():forward({ ab, bb }), torch.Tensor { 11, 2 }, 0, 'batch dot')
   H.close(nn.CosineDistance():forward({ ab, bb }), torch.Tensor { 11 / 15, 1 }, 1e-12, 'batch cosine')
   H.close(nn.PairwiseDistance(3):forward({ ab, bb }), torch.Tensor { (8 + 8 + 8) ^ (1 / 3), 1 }, 1e-12,
      'batch L3')
   for _, m in ipairs { nn.DotProduct(), nn.CosineDistance(), nn.PairwiseDistance(1), nn.PairwiseDistance(2),
      nn.PairwiseDistance(3) } do
      H.gradients(split(m), torch.Tensor(2, 5), torch.type(m))
      H.gradients(split(m:clone()), torch.Tensor(2, 3, 4), torch.type(m) .. ' batch')
   end
   local f = nn.CosineDistance():float()
   H.check(torch.type(f:backward({ a:float(), b:float() }, torch.FloatTensor { 1 })[1]) == 'torch.FloatTensor',
      'float cosine gradient')
   errors(function() nn.DotProduct():forward({ a, torch.randn(2) }) end, 'same size', 'dot sizes')
   errors(function() nn.PairwiseDistance():forward({ torch.randn(2, 2, 2), torch.randn(2, 2, 2) }) end,
      'vector or matrix', 'distance dimensions')
end)

H.case('MixtureTable', function()
   -- Two experts of two values, gates 0.25 and 0.75.
   local gater = torch.Tensor { 0.25, 0.75 }
   local e1, e2 = torch.Tensor { 4, 8 }, torch.Tensor { 0, 4 }
   local m = nn.MixtureTable()
   H.close(m:forward({ gater, { e1, e2 } }), torch.Tensor { 1, 5 }, 1e-12, 'table of experts')
   local g = m:backward({ gater, { e1, e2 } }, torch.Tensor { 1, 1 })
   H.close(g[1], torch.Tensor { 12, 4 }, 1e-12, 'gater gradient')
   H.close(g[2][2], torch.Tensor { 0.75, 0.75 }, 1e-12, 'expert gradient')
   local t = nn.MixtureTable(1)
   local experts = torch.Tensor { { 4, 8 }, { 0, 4 } }
   H.close(t:forward({ gater, experts }), torch.Tensor { 1, 5 }, 1e-12, 'tensor of experts')
   g = t:backward({ gater, experts }, torch.Tensor { 1, 1 })
   H.close(g[1], torch.Tensor { 12, 4 }, 1e-12, 'tensor gater gradient')
   H.close(g[2], torch.Tensor { { 0.25, 0.25 }, { 0.75, 0.75 } }, 1e-12, 'tensor expert gradient')
   -- Batches: gater B x E with experts B x E x D (tensor) or E tensors of B x D, against the sum.
   local B, E, D = 3, 4, 2
   local gb, eb, go = torch.rand(B, E), torch.randn(B, E, D), torch.randn(B, D)
   local want = torch.cmul(gb:view(B, E, 1):expand(B, E, D), eb):sum(2):view(B, D)
   local list = {}
   for i = 1, E do list[i] = eb:select(2, i):clone() end
   H.close(nn.MixtureTable():forward({ gb, list }), want, 1e-12, 'batch table')
   local mt = nn.MixtureTable(2)
   H.close(mt:forward({ gb, eb }), want, 1e-12, 'batch tensor')
   local gt = mt:backward({ gb, eb }, go)
   local gl = nn.MixtureTable():backward({ gb, list }, go)
   H.close(gt[1], gl[1], 1e-12, 'batch gater gradients agree')
   H.close(gt[2]:select(2, 3), gl[2][3], 1e-12, 'batch expert gradients agree')
   -- The gradients against finite differences: row 1 of the tensor is the gater of 3 experts, the
   -- other rows the experts.
   local full = nn.Sequential():add(nn.SplitTable(1)):add(nn.ConcatTable()
      :add(nn.SelectTable(1)):add(nn.NarrowTable(2, 3))):add(nn.MixtureTable())
   H.gradients(full, torch.Tensor(4, 3), 'MixtureTable')
   local batched = nn.Sequential():add(nn.SplitTable(2)):add(nn.ConcatTable()
      :add(nn.SelectTable(1)):add(nn.NarrowTable(2, 3))):add(nn.MixtureTable())
   H.gradients(batched, torch.Tensor(2, 4, 3), 'MixtureTable batch')
   m:float()
   H.check(torch.type(m:forward({ gater:float(), { e1:float(), e2:float() } })) == 'torch.FloatTensor', 'float')
   errors(function() nn.MixtureTable():forward({ gater, { e1 } }) end, '2 gater outputs for 1 experts', 'count')
end)

H.case('ZipTable, ZipTableOneToMany, CAddTensorTable', function()
   local a1, a2, b1, b2 = torch.rand(2), torch.rand(2), torch.rand(2), torch.rand(2)
   local z = nn.ZipTable()
   local out = z:forward({ { a1, a2 }, { b1, b2 } })
   H.check(#out == 2 and out[1][1] == a1 and out[1][2] == b1 and out[2][1] == a2 and out[2][2] == b2, 'zipped')
   local g = z:backward({ { a1, a2 }, { b1, b2 } }, out)
   H.check(g[1][2] == a2 and g[2][1] == b1, 'unzipped gradient')

   local v = torch.Tensor { 1, 2 }
   local o2m = nn.ZipTableOneToMany()
   out = o2m:forward({ v, { a1, a2, b1 } })
   H.check(#out == 3 and out[3][1] == v and out[3][2] == b1, 'one to many')
   g = o2m:backward({ v, { a1, a2, b1 } }, { { v, a1 }, { v, a2 }, { v, b1 } })
   H.close(g[1], v * 3, 0, 'gradient of the one')
   H.check(g[2][2] == a2, 'gradient of the many')

   local add = nn.CAddTensorTable()
   out = add:forward({ v, { torch.Tensor { 1, 1 }, torch.Tensor { 0, -2 } } })
   H.close(out[2], torch.Tensor { 1, 0 }, 0, 'added')
   g = add:backward({ v, { a1, a2 } }, { torch.Tensor { 1, 2 }, torch.Tensor { 3, 4 } })
   H.close(g[1], torch.Tensor { 4, 6 }, 0, 'gradient of the tensor')
   H.close(g[2][2], torch.Tensor { 3, 4 }, 0, 'gradient of the table')
   H.check(#add:forward({ v, { a1 } }) == 1, 'shorter table')
   local net = nn.Sequential():add(nn.SplitTable(1)):add(nn.ConcatTable()
      :add(nn.SelectTable(1)):add(nn.NarrowTable(2, 2))):add(nn.CAddTensorTable()):add(nn.JoinTable(1))
   H.gradients(net, torch.Tensor(3, 4), 'CAddTensorTable')
   errors(function() z:forward({ a1 }) end, 'nn.ZipTable', 'not tables')
   errors(function() o2m:forward({ v }) end, 'nn.ZipTableOneToMany', 'no table')
   errors(function() add:forward({ v, a1 }) end, 'nn.CAddTensorTable', 'not a table')
end)

H.finish()
