-- Wrong arguments to every nccl function, CPU tensors, and (on a machine without a GPU) what a
-- communicator says. Needs neither the NCCL library nor a GPU.
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*/)') or './') .. 'helpers.lua')
local nccl = require 'nccl'

local id = string.rep('i', 128)
local cpu = torch.FloatTensor(4):fill(1)

H.case('nccl.communicator: wrong arguments', function()
   local F = 'nccl.communicator: '
   H.fails('no nranks', F, function() nccl.communicator() end, 'bad argument #1', 'nranks', 'got nil')
   H.fails('nranks a string', F, function() nccl.communicator('two', id, 0) end, 'bad argument #1', 'got string')
   H.fails('nranks 0', F, function() nccl.communicator(0, id, 0) end, 'bad argument #1', 'at least 1')
   H.fails('nranks 1.5', F, function() nccl.communicator(1.5, id, 0) end, 'bad argument #1', 'integer')
   H.fails('no id', F, function() nccl.communicator(2, nil, 0) end, 'bad argument #2', 'nccl.UniqueId', 'got nil')
   H.fails('a table id', F, function() nccl.communicator(2, {}, 0) end, 'bad argument #2', 'got table')
   H.fails('a short id', F, function() nccl.communicator(2, 'abc', 0) end, 'bad argument #2', '128 bytes',
      'string of 3')
   H.fails('no rank', F, function() nccl.communicator(2, id) end, 'bad argument #3', 'rank', 'got nil')
   H.fails('rank = nranks', F, function() nccl.communicator(2, id, 2) end, 'bad argument #3', 'in 0..1', 'got 2')
   H.fails('rank -1', F, function() nccl.communicator(2, id, -1) end, 'bad argument #3', 'got -1')
   H.fails('rank 0.5', F, function() nccl.communicator(2, id, 0.5) end, 'bad argument #3', 'integer', 'got 0.5')
   H.fails('device 0', F, function() nccl.communicator(2, id, 0, 0) end, 'bad argument #4', 'start at 1')
   H.fails('device a string', F, function() nccl.communicator(2, id, 0, 'gpu') end, 'bad argument #4', 'got string')
   for _, bad in ipairs({ 0, -1, 'long', 1 / 0 }) do
      nccl.timeout = bad
      local ok, msg = pcall(nccl.communicator, 1, id, 0, 1)
      nccl.timeout = 300
      H.check(not ok and msg:find('nccl.communicator: nccl.timeout must be a positive number of seconds', 1, true),
         'nccl.timeout = %s: %s', tostring(bad), tostring(msg))
   end
end)

H.case('nccl.UniqueId: wrong arguments', function()
   H.fails('no bytes', 'nccl.UniqueId: ', function() nccl.UniqueId() end, 'expected the 128 bytes', 'got nil')
   H.fails('short', 'nccl.UniqueId: ', function() nccl.UniqueId('abc') end, 'got a string of 3 bytes')
   local u = nccl.UniqueId(id)
   H.eq(torch.type(u), 'nccl.UniqueId', 'torch.type')
   H.eq(u:bytes(), id, 'the bytes')
   H.check(u == nccl.UniqueId(id), 'ids with the same bytes are equal')
   H.check(u ~= nccl.UniqueId(string.rep('j', 128)), 'ids with other bytes differ')
   H.check(tostring(u):find('^nccl%.UniqueId 6969696969696969'), 'tostring: %s', tostring(u))
end)

-- nccl.torch's calls: argument shapes and CPU tensors.
local single = {
   allReduce = true, reduce = true, bcast = false, allGather = true, reduceScatter = true,
}
for name, outputs in pairs(single) do
   H.case('nccl.' .. name .. ': wrong arguments and CPU tensors', function()
      local F = 'nccl.' .. name .. ': '
      local f = nccl[name]
      H.fails('no inputs', F, function() f() end, 'bad argument #1', 'inputs', 'got nil')
      H.fails('a tensor, not a list', F, function() f(cpu) end, 'bad argument #1', 'got torch.FloatTensor')
      H.fails('empty inputs', F, function() f({}) end, 'inputs is empty')
      H.fails('a CPU tensor', F, function() f({ cpu }, outputs and { cpu } or nil) end,
         'inputs[1]: expected a torch.Cuda*Tensor, got torch.FloatTensor')
      H.fails('a number in the list', F, function() f({ 3 }) end, 'inputs[1]', 'got number')
      H.fails('a string option', F, function() f({ cpu }, 'fast') end, 'bad argument #2', 'got string')
      if not outputs then
         H.fails('outputs to bcast', F, function() f({ cpu }, { cpu }) end, 'bad argument #2', 'got table')
      end
      if name == 'allReduce' or name == 'allGather' or name == 'reduceScatter' then
         H.fails('a root where none is taken', F, function() f({ cpu }, { cpu }, false, 1) end, 'bad argument #4',
            'got number')
      end
   end)
end

H.case('without a GPU: communicator and collectives say so', function()
   if H.cutorch() then
      print('SKIP (a GPU is present): the no-GPU errors')
      return
   end
   -- The device is checked before the library is needed, so this holds with or without NCCL.
   H.fails('communicator', 'nccl.communicator: ', function() nccl.communicator(1, id, 0) end, 'CUDA')
   H.fails('communicator from an nccl.UniqueId', 'nccl.communicator: ',
      function() nccl.communicator(1, nccl.UniqueId(id), 0, 1) end, 'CUDA')
end)

H.finish()
