-- Moving elements by position on the device (gather, scatter, scatterAdd, indexCopy, indexAdd,
-- indexFill, maskedSelect, maskedCopy, nonzero), each checked against the same call on host
-- tensors, for every device type, along every dimension, on contiguous and transposed views.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local cases = {}
local same = H.same
local types = { 'FloatTensor', 'DoubleTensor', 'LongTensor' }

-- Positions 1..size(dim) in a tensor shaped as `shape`, distinct along `dim` (a permutation of
-- each line, cut to shape[dim]) when `distinct`, else drawn with repeats.
local function positions(shape, full, dim, distinct)
   if distinct then
      local sizes = torch.LongStorage(shape)
      sizes[dim] = full
      local _, perm = torch.rand(sizes):sort(dim)
      return perm:narrow(dim, 1, shape[dim]):clone()
   end
   return torch.LongTensor(unpack(shape)):random(1, full)
end

-- x and its transposed view (first and last dimensions swapped), the same elements.
local function layouts(x)
   return { contiguous = x, transposed = x:transpose(1, x:dim()):clone():transpose(1, x:dim()) }
end

function cases.gather()
   for _, T in ipairs(types) do
      for vn, x in pairs(layouts(torch[T](4, 5, 3):random(-9, 9))) do
         for dim = 1, 3 do
            local shape = x:size():totable()
            shape[dim] = 2
            local idx = positions(shape, x:size(dim), dim, false)
            local what = string.format('%s gather of a %s tensor along %d', T, vn, dim)
            same(what, function(a, i) return a:gather(dim, i) end, { x, idx })
            same(what .. ' (torch.gather into res)', function(a, i)
               local res = a.new(1, 1):t()
               torch.gather(res, a, dim, i)
               return res
            end, { x, idx })
            -- A LongTensor index on the host serves the device too.
            H.close(H.cuda(x):gather(dim, idx), x:gather(dim, idx), 0, what .. ' with host positions')
         end
      end
   end
   local x = torch.CudaTensor(3, 4)
   H.raises('out of range', function() x:gather(1, torch.LongTensor({ { 4, 1, 1, 1 } })) end, 'gather', 'out of range')
   H.raises('zero', function() x:gather(1, torch.CudaLongTensor({ { 0, 1, 1, 1 } })) end, 'gather', 'out of range')
   H.raises('other sizes', function() x:gather(1, torch.LongTensor(2, 3):fill(1)) end, 'gather', 'inconsistent')
   H.raises('float positions', function() x:gather(1, torch.CudaTensor(1, 4):fill(1)) end, 'gather', 'LongTensor')
   H.raises('bad dim', function() x:gather(3, torch.LongTensor(1, 4):fill(1)) end, 'gather', 'dimension')
end

function cases.scatter()
   for _, T in ipairs(types) do
      for vn, t in pairs(layouts(torch[T](4, 5, 3):random(-9, 9))) do
         for dim = 1, 3 do
            local shape = t:size():totable()
            shape[dim] = 2
            -- scatter writes once per position (repeats would race on the device, as in cutorch).
            local idx = positions(shape, t:size(dim), dim, true)
            local src = torch[T](4, 5, 3):random(-9, 9)
            local what = string.format('%s scatter into a %s tensor along %d', T, vn, dim)
            same(what, function(a, i, s) return a:scatter(dim, i, s) end, { t:clone(), idx, src })
            same(what .. ' (a number)', function(a, i) return a:scatter(dim, i, 7) end, { t:clone(), idx })
            -- scatterAdd adds every one, repeats included.
            local rep = positions(shape, t:size(dim), dim, false)
            same(what .. ' (scatterAdd)', function(a, i, s) return a:scatterAdd(dim, i, s) end, { t:clone(), rep, src })
            same(what .. ' (torch.scatter)', function(a, i, s) return torch.scatter(a, dim, i, s) end,
               { t:clone(), idx, src })
         end
      end
   end
   local x = torch.CudaTensor(3, 4):zero()
   local idx = torch.LongTensor({ { 1, 2, 3, 1 } })
   H.raises('wrong type', function() x:scatter(1, idx, torch.CudaDoubleTensor(3, 4)) end, 'scatter', 'CudaTensor')
   H.raises('host source', function() x:scatter(1, idx, torch.FloatTensor(3, 4)) end, 'scatter', 'CUDA tensor')
   H.raises('out of range', function() x:scatterAdd(1, torch.LongTensor({ { 1, 2, 4, 1 } }), x) end, 'scatterAdd',
      'out of range')
   H.raises('short source', function() x:scatter(1, torch.LongTensor(3, 4):fill(1), torch.CudaTensor(2, 4)) end,
      'scatter', 'more than the source')
end

function cases.indexCopyAddFill()
   for _, T in ipairs(types) do
      for vn, t in pairs(layouts(torch[T](5, 6, 4):random(-9, 9))) do
         for dim = 1, 3 do
            local distinct = torch.randperm(t:size(dim)):long():narrow(1, 1, 3)
            local shape = t:size():totable()
            shape[dim] = 3
            local src = torch[T](unpack(shape)):random(-9, 9)
            local what = string.format('%s on a %s tensor along %d', T, vn, dim)
            same('indexCopy ' .. what, function(a, i, s) return a:indexCopy(dim, i, s) end, { t:clone(), distinct, src })
            local rep = torch.LongTensor({ 1, t:size(dim), 1 })
            same('indexAdd ' .. what, function(a, i, s) return a:indexAdd(dim, i, s) end, { t:clone(), rep, src })
            same('indexFill ' .. what, function(a, i) return a:indexFill(dim, i, -3) end, { t:clone(), rep })
            same('torch.indexAdd ' .. what, function(a, i, s) return torch.indexAdd(a, dim, i, s) end,
               { t:clone(), rep, src })
         end
      end
      -- A source of other sizes whose slices have as many elements, in their logical order.
      same(T .. ' indexCopy from a source of other sizes', function(a, i, s) return a:indexCopy(1, i, s) end,
         { torch[T](4, 6):zero(), torch.LongTensor({ 3, 1 }), torch[T](2, 2, 3):random(1, 9) })
      same(T .. ' indexCopy along 2 from a source of other sizes', function(a, i, s) return a:indexCopy(2, i, s) end,
         { torch[T](3, 4):zero(), torch.LongTensor({ 4, 2 }), torch[T](1, 2, 3):random(1, 9) })
   end
   local x = torch.CudaTensor(3, 4):zero()
   H.raises('count', function() x:indexCopy(1, torch.LongTensor({ 1, 2 }), torch.CudaTensor(3, 4)) end, 'indexCopy',
      'number of indices')
   H.raises('slices', function() x:indexAdd(1, torch.LongTensor({ 1 }), torch.CudaTensor(1, 3)) end, 'indexAdd',
      'inconsistent')
   H.raises('out of range', function() x:indexFill(2, torch.LongTensor({ 5 }), 1) end, 'indexFill', 'out of range')
   H.raises('matrix of positions', function() x:indexFill(2, torch.LongTensor(2, 2):fill(1), 1) end, 'indexFill',
      'vector')
end

function cases.masks()
   for _, T in ipairs(types) do
      for vn, x in pairs(layouts(torch[T](4, 5, 3):random(-9, 9))) do
         local what = string.format('%s masks of a %s tensor', T, vn)
         local hostMask = x:gt(0)
         local dx = H.cuda(x)
         -- Masks from device comparisons (1 and 0 in the tensor's type) or host ByteTensors.
         for mn, mask in pairs { device = dx:gt(0), host = hostMask } do
            H.close(dx:maskedSelect(mask), x:maskedSelect(hostMask), 0, what .. ': maskedSelect, ' .. mn .. ' mask')
            local res = dx.new(2, 2)
            res:maskedSelect(dx, mask)
            H.close(res, x:maskedSelect(hostMask), 0, what .. ': res:maskedSelect, ' .. mn .. ' mask')
            local src = torch[T](70):random(-99, 99)
            local want = x:clone():maskedCopy(hostMask, src)
            H.close(dx:clone():maskedCopy(mask, H.cuda(src)), want, 0, what .. ': maskedCopy, ' .. mn .. ' mask')
         end
         H.close(torch.maskedSelect(dx, dx:gt(0)), x:maskedSelect(hostMask), 0, what .. ': torch.maskedSelect')
         H.close(dx:nonzero(), x:nonzero(), 0, what .. ': nonzero')
         local res = torch.CudaLongTensor()
         torch.nonzero(res, dx)
         H.close(res, x:nonzero(), 0, what .. ': torch.nonzero into res')
      end
   end
   local x = torch.CudaTensor(2, 3):fill(-1)
   H.eq(x:maskedSelect(x:gt(0)):nElement(), 0, 'nothing selected')
   H.eq(x:nonzero():size(1), 6, 'every element not zero')
   H.eq(x:zero():nonzero():nElement(), 0, 'no element not zero')
   H.raises('mask size', function() x:maskedSelect(torch.CudaTensor(5):fill(1)) end, 'maskedSelect', 'mask has 5')
   H.raises('short source', function() x:fill(1):maskedCopy(x:gt(0), torch.CudaTensor(4)) end, 'maskedCopy',
      'source has 4')
   H.raises('not a mask', function() x:maskedSelect(3) end, 'maskedSelect', 'mask')
   H.raises('nonzero into a CudaTensor', function() torch.nonzero(torch.CudaTensor(), x:fill(1)) end, 'nonzero',
      'CudaLongTensor')
end

return cases
