-- nn.Module.flatten and getParameters: Torch7's layout for every list it accepts (repeats,
-- shared storages, views of one storage, empty tensors), values kept exactly, checked against a
-- plain reference on random lists; and what refused lists leave behind (nothing moved).
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')

H.case('a list naming each tensor twice (dpnn) gives the layout of one naming it once', function()
   local l1, l2 = nn.Linear(2, 2), nn.Linear(2, 50)
   local p = { l1.weight, l1.bias, l2.weight, l2.bias, l1.weight, l1.bias, l2.weight, l2.bias }
   local w0 = l2.weight:clone()
   local flat = nn.Module.flatten(p)
   H.check(flat:nElement() == 156, '%d elements, Torch7 gives 156', flat:nElement())
   H.check(l2.weight:storageOffset() == 7, 'l2.weight at %d, Torch7 puts it at 7', l2.weight:storageOffset())
   H.check((l2.weight - w0):abs():max() == 0, 'l2.weight changed')
   H.check(torch.pointer(l1.weight:storage()) == torch.pointer(flat:storage()), 'l1.weight is not in the flat storage')
end)

H.case('Linear + Euclidean listed twice: 290 elements, as Torch7', function()
   local m = nn.Sequential():add(nn.Linear(10, 10)):add(nn.Euclidean(15, 12))
   local w, g = m:parameters()
   local ws, gs = {}, {}
   for _, list in ipairs { { w, ws }, { g, gs } } do
      for _ = 1, 2 do for _, t in ipairs(list[1]) do table.insert(list[2], t) end end
   end
   local flat, gflat = nn.Module.flatten(ws), nn.Module.flatten(gs)
   H.check(flat:nElement() == 290 and gflat:nElement() == 290, '%d and %d elements, Torch7 gives 290',
      flat:nElement(), gflat:nElement())
end)

-- The reference: Torch7's rule written plainly. Storages in the order they first appear, each
-- giving the elements its tensors reach, in storage order; a tensor's new offset is the place
-- of its first element among those.
local function reference(list)
   local order, mark, seen = {}, {}, {}
   for _, t in ipairs(list) do
      local s = t:storage()
      if s and t:nElement() > 0 then
         local key = torch.pointer(s)
         if not mark[key] then
            mark[key] = {}
            order[#order + 1] = { key = key, storage = s }
         end
         -- every element the tensor reaches, by its 1-based storage position: the same view
         -- over a storage holding each position's number
         local positions = torch.range(1, s:size()):long():storage()
         local idx = torch.LongTensor():set(positions, t:storageOffset(), t:size(), t:stride())
         for _, i in ipairs(idx:clone():view(-1):totable()) do mark[key][i] = true end
         seen[t] = key
      end
   end
   local base, rank, values = 0, {}, {}
   for _, entry in ipairs(order) do
      rank[entry.key] = {}
      for i = 1, entry.storage:size() do
         if mark[entry.key][i] then
            base = base + 1
            rank[entry.key][i] = base
            values[base] = entry.storage[i]
         end
      end
   end
   local offsets = {}
   for _, t in ipairs(list) do
      if seen[t] then offsets[t] = rank[seen[t]][t:storageOffset()] end
   end
   return base, offsets, values
end

-- A random list over a few storages: blocks, matrices and their transposes, single elements,
-- strided pairs, empty tensors, repeats, and storages with parts no tensor reaches.
local function random_list(Tensor)
   local list = {}
   local storages = {}
   for i = 1, math.random(1, 4) do storages[i] = Tensor(math.random(4, 40)):uniform():storage() end
   for _ = 1, math.random(1, 8) do
      local s = storages[math.random(#storages)]
      local kind = math.random(5)
      local n = s:size()
      local off = math.random(1, n)
      local t
      if kind == 1 then
         local len = math.random(1, n - off + 1)
         t = Tensor():set(s, off, torch.LongStorage { len })
      elseif kind == 2 and n - off + 1 >= 4 then
         local rows = 2
         local cols = math.random(1, math.floor((n - off + 1) / rows))
         t = Tensor():set(s, off, torch.LongStorage { rows, cols })
         if math.random(2) == 1 then t = t:t() end
      elseif kind == 3 then
         t = Tensor()
      elseif kind == 4 and n - off + 1 >= 4 then
         -- two elements with a gap: refused unless other tensors fill it
         t = Tensor():set(s, off, torch.LongStorage { 2 }, torch.LongStorage { 3 })
      else
         t = Tensor():set(s, off, torch.LongStorage { 1 })
      end
      list[#list + 1] = t
      if math.random(3) == 1 then list[#list + 1] = list[math.random(#list)] end
   end
   return list
end

H.case('random lists: the reference layout, values kept exactly, sharing kept', function()
   local refused = 0
   for trial = 1, 300 do
      local Tensor = trial % 2 == 0 and torch.FloatTensor or torch.DoubleTensor
      local list = random_list(Tensor)
      local total, offsets, values = reference(list)
      local before = {}
      for i, t in ipairs(list) do before[i] = t:clone() end
      local ok, flat = pcall(nn.Module.flatten, list)
      -- A list where a tensor leaves gaps nobody fills (a column alone) is refused, as in Torch7.
      if ok then
         H.check(flat:nElement() == total, 'trial %d: %d elements, the reference has %d', trial, flat:nElement(), total)
         for i = 1, total do
            H.check(flat[i] == values[i], 'trial %d: element %d is %g, the reference has %g', trial, i, flat[i], values[i])
         end
         for i, t in ipairs(list) do
            H.check(t:isSameSizeAs(before[i]), 'trial %d: tensor %d changed shape', trial, i)
            if t:nElement() > 0 then
               H.check(torch.pointer(t:storage()) == torch.pointer(flat:storage()), 'trial %d: tensor %d not moved', trial, i)
               H.check(t:storageOffset() == offsets[t], 'trial %d: tensor %d at %d, the reference puts it at %d',
                  trial, i, t:storageOffset(), offsets[t])
               H.check(t:equal(before[i]), 'trial %d: tensor %d changed its values', trial, i)
            end
         end
      else
         refused = refused + 1
         H.check(tostring(flat):find('not compact'), 'trial %d: %s', trial, tostring(flat))
         for i, t in ipairs(list) do H.check(t:equal(before[i]), 'trial %d: a refused list moved tensor %d', trial, i) end
      end
   end
   H.check(refused > 0 and refused < 300, '%d of 300 lists refused: the lists do not cover both paths', refused)
end)

H.case('mixed types are refused before anything moves', function()
   local a, b = torch.DoubleTensor(3):fill(1), torch.FloatTensor(2):fill(2)
   local sa = a:storage()
   local ok, err = pcall(nn.Module.flatten, { a, b })
   H.check(not ok and tostring(err):find('nn.Module.flatten: parameter 2 is a torch.FloatTensor'), '%s', tostring(err))
   H.check(torch.pointer(a:storage()) == torch.pointer(sa), 'the first tensor was moved')
end)

H.case('getParameters of a model whose parameters() repeat (dpnn) trains as the plain one', function()
   local function model()
      torch.manualSeed(7)
      return nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2))
   end
   local plain, doubled = model(), model()
   local params = doubled.parameters
   function doubled:parameters()
      local w, g = params(self)
      local n = #w
      for i = 1, n do w[n + i], g[n + i] = w[i], g[i] end
      return w, g
   end
   local p1, g1 = plain:getParameters()
   local p2, g2 = doubled:getParameters()
   H.check(p1:nElement() == p2:nElement() and p1:equal(p2), 'the flat parameters differ')
   local x, y = torch.randn(5, 3), torch.randn(5, 2)
   local crit = nn.MSECriterion()
   for _ = 1, 5 do
      for _, m in ipairs { { plain, p1, g1 }, { doubled, p2, g2 } } do
         m[3]:zero()
         local out = m[1]:forward(x)
         crit:forward(out, y)
         m[1]:backward(x, crit:backward(out, y))
         m[2]:add(-0.1, m[3])
      end
   end
   H.check(p1:equal(p2), 'after 5 steps the models differ by %g', (p1 - p2):abs():max())
end)

H.case('clearState leaves a table output as {}, a tensor output empty', function()
   local c = nn.ConcatTable():add(nn.Identity()):add(nn.Identity())
   c:forward(torch.randn(3))
   c:clearState()
   H.check(type(c.output) == 'table' and next(c.output) == nil, 'output is %s', tostring(c.output))
   local s = nn.Sequential():add(nn.Linear(2, 2))
   s:forward(torch.randn(2))
   s:clearState()
   H.check(torch.isTensor(s.output) and s.output:nElement() == 0, 'a tensor output is not left empty')
end)

H.finish()
