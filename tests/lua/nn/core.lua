-- The Module API, containers, getParameters, type conversion, serialization, and the models the
-- original Torch7 saved (tests/fixtures/t7/nn) reproducing its outputs.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

H.case('models saved by the original give its outputs', function()
   for _, name in ipairs { 'mlp', 'convnet', 'tables', 'text', 'mlp.ascii', 'tables.ascii', 'text.ascii' } do
      local format = name:find('ascii') and 'ascii' or 'binary'
      local d = torch.load(H.fixtures .. name .. '.t7', format)
      local out = d.model:forward(d.input)
      H.close(out, d.output, 1e-10, name)
   end
   for _, name in ipairs { 'float_mse', 'float_mse.ascii' } do
      local format = name:find('ascii') and 'ascii' or 'binary'
      local d = torch.load(H.fixtures .. name .. '.t7', format)
      local out = d.model:forward(d.input)
      H.check(torch.type(out) == 'torch.FloatTensor', '%s: output is a %s', name, torch.type(out))
      local loss = d.criterion:forward(out, d.target)
      H.close(loss, d.loss, 1e-5, name .. ' loss')
      local gi = d.model:backward(d.input, d.criterion:backward(out, d.target))
      H.close(gi, d.gradInput, 1e-5, name .. ' gradInput')
   end
end)

H.case('shared parameters of a saved model stay shared', function()
   local d = torch.load(H.fixtures .. 'tables.t7')
   local a, b = d.model.modules[1].modules[1], d.model.modules[1].modules[2]
   H.check(torch.pointer(a.weight:storage()) == torch.pointer(b.weight:storage()), 'weights are not shared')
   a.weight:fill(0.5)
   H.check(b.weight:max() == 0.5 and b.weight:min() == 0.5, 'a write to one weight does not show in the other')
end)

H.case('our models read back as written, in both formats', function()
   local model = nn.Sequential():add(nn.Linear(4, 3)):add(nn.Tanh()):add(nn.Linear(3, 2)):add(nn.LogSoftMax())
   local x = torch.randn(5, 4)
   local want = model:forward(x):clone()
   for _, format in ipairs { 'binary', 'ascii' } do
      local file = os.tmpname()
      torch.save(file, model, format)
      local back = torch.load(file, format)
      os.remove(file)
      H.check(torch.type(back) == 'nn.Sequential', '%s: read back a %s', format, torch.type(back))
      H.close(back:forward(x), want, 0, format)
   end
end)

H.case('getParameters flattens and keeps sharing', function()
   local n = nn.Sequential():add(nn.Linear(10, 10))
   n:add(n.modules[1]:clone('weight', 'bias', 'gradWeight', 'gradBias'))
   n:add(nn.Linear(10, 3))
   local p, g = n:getParameters()
   H.check(p:nElement() == 110 + 33, 'flat parameters: %d elements', p:nElement())
   H.check(g:nElement() == p:nElement(), 'flat gradients: %d elements', g:nElement())
   H.close(p:narrow(1, 1, 100), n.modules[1].weight, 0, 'first weight')
   H.close(p:narrow(1, 1, 100), n.modules[2].weight, 0, 'shared weight')
   H.close(p:narrow(1, 111, 30), n.modules[3].weight, 0, 'third weight')
   p:fill(0.25)
   H.check(n.modules[2].bias:max() == 0.25, 'the modules do not see the flat storage')
   -- Calling it again gives the same layout.
   local p2 = n:getParameters()
   H.check(p2:nElement() == p:nElement(), 'second call: %d elements', p2:nElement())
end)

H.case('getParameters refuses a tensor with gaps', function()
   local l = nn.Linear(10, 10)
   l.bias = torch.Tensor(10, 10):select(2, 2)
   local ok, err = pcall(l.getParameters, l)
   H.check(not ok and tostring(err):find('not compact'), 'expected an error, got %s', tostring(err))
end)

H.case('type conversion keeps shared storages shared', function()
   local a = nn.Linear(3, 3)
   local b = a:clone('weight', 'bias')
   local m = nn.Sequential():add(a):add(b):float()
   H.check(torch.type(m.modules[1].weight) == 'torch.FloatTensor', 'weight is %s', torch.type(m.modules[1].weight))
   H.check(torch.pointer(m.modules[1].weight:storage()) == torch.pointer(m.modules[2].weight:storage()),
      'sharing lost in conversion')
   H.check(m:type() == 'torch.FloatTensor', 'type() says %s', tostring(m:type()))
end)

H.case('print format', function()
   local m = nn.Sequential():add(nn.Linear(10, 20)):add(nn.ReLU())
   local c = nn.ConcatTable():add(nn.Linear(5, 5)):add(nn.Identity())
   m:add(c)
   local want = table.concat({
      'nn.Sequential {',
      '  [input -> (1) -> (2) -> (3) -> output]',
      '  (1): nn.Linear(10 -> 20)',
      '  (2): nn.ReLU',
      '  (3): nn.ConcatTable {',
      '    input',
      '      |`-> (1): nn.Linear(5 -> 5)',
      '       `-> (2): nn.Identity',
      '       ... -> output',
      '  }',
      '}',
   }, '\n')
   H.check(tostring(m) == want, 'got\n%s', tostring(m))
end)

H.case('module walking', function()
   local inner = nn.Sequential():add(nn.Linear(2, 2)):add(nn.Tanh())
   local m = nn.Sequential():add(inner):add(nn.Linear(2, 1))
   local list = m:listModules()
   H.check(#list == 5, '%d modules listed', #list)
   local found, containers = m:findModules('nn.Linear')
   H.check(#found == 2 and containers[1] == inner and containers[2] == m, 'findModules')
   m:replace(function(x) if torch.type(x) == 'nn.Tanh' then return nn.Sigmoid() end return x end)
   H.check(torch.type(inner.modules[2]) == 'nn.Sigmoid', 'replace')
   m:evaluate()
   H.check(inner.modules[1].train == false, 'evaluate does not reach inside')
   m:training()
   H.check(inner.modules[1].train == true, 'training does not reach inside')
end)

H.case('an error deep inside names the module', function()
   local m = nn.Sequential():add(nn.Linear(3, 3)):add(nn.Linear(4, 2))
   local ok, err = pcall(m.forward, m, torch.randn(3))
   H.check(not ok and tostring(err):find('In 2 module of nn.Sequential:', 1, true), 'got %s', tostring(err))
end)

H.case('gradients of the core layers', function()
   H.gradients(nn.Linear(5, 4), torch.Tensor(5), 'Linear', { { 'weight', 'gradWeight' }, { 'bias', 'gradBias' } })
   H.gradients(nn.Linear(5, 4), torch.Tensor(3, 5), 'Linear batch', { { 'weight', 'gradWeight' } })
   H.gradients(nn.Tanh(), torch.Tensor(3, 4), 'Tanh')
   H.gradients(nn.Sigmoid(), torch.Tensor(3, 4), 'Sigmoid')
   H.gradients(nn.SoftMax(), torch.Tensor(3, 4), 'SoftMax')
   H.gradients(nn.LogSoftMax(), torch.Tensor(3, 4), 'LogSoftMax')
   H.gradients(nn.SpatialConvolution(2, 3, 3, 2, 2, 1, 1, 1), torch.Tensor(2, 2, 6, 5), 'SpatialConvolution',
      { { 'weight', 'gradWeight' }, { 'bias', 'gradBias' } })
   H.gradients(nn.TemporalConvolution(3, 2, 3, 2), torch.Tensor(2, 7, 3), 'TemporalConvolution',
      { { 'weight', 'gradWeight' }, { 'bias', 'gradBias' } })
   H.gradients(nn.SpatialMaxPooling(2, 2, 1, 2, 1, 1), torch.Tensor(2, 5, 4), 'SpatialMaxPooling')
   local bn = nn.BatchNormalization(3)
   H.gradients(bn, torch.Tensor(6, 3), 'BatchNormalization', { { 'weight', 'gradWeight' }, { 'bias', 'gradBias' } })
end)

H.case('errors inside a module name it, with its file and line, as Torch7', function()
   local ok, err = pcall(function() return nn.Linear(10, 5):forward(torch.randn(7)) end)
   H.check(not ok and tostring(err):find('nn/Linear%.lua:%d+: ') and tostring(err):find('size mismatch'),
      'Linear: %s', tostring(err))
   ok, err = pcall(function() return nn.SpatialConvolution(1, 16, 3, 3, 0, 0):forward(torch.randn(1, 9, 9)) end)
   H.check(not ok and tostring(err):find('nn.SpatialConvolution: the stride must be at least 1, got 0'),
      'stride 0: %s', tostring(err))
   H.check(tostring(err):find('^%[luatorch%]/nn/'), 'stride 0 error not located in nn: %s', tostring(err))
   ok, err = pcall(function() return nn.SpatialMaxPooling(2, 2):forward(torch.randn(5)) end)
   H.check(not ok and tostring(err):find('nn.SpatialMaxPooling: input must be 3D'), 'max pooling of 1-D: %s', tostring(err))
   ok, err = pcall(function() return nn.SpatialMaxPooling(2, 2, 0, 1):forward(torch.randn(1, 4, 4)) end)
   H.check(not ok and tostring(err):find('nn.SpatialMaxPooling: the stride must be at least 1, got 0'),
      'pooling stride 0: %s', tostring(err))
end)

H.finish()
