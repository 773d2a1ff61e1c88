-- The direct view: every engine runs its own copy (execute, push/pull, apply, require,
-- scatter/gather, map, the dv.name sugar), values of every kind both ways, and engines that keep
-- their globals between calls. arg[1]: the profile.
local cluster = require 'cluster'
local c = cluster.client(arg[1])
local ids = c:wait_for_engines(2, 30)
assert(#ids == 2 and ids[1] < ids[2], 'two engines')
local dv = c:direct_view()
assert(tostring(dv) == 'DirectView(all)')

-- execute: code strings and functions, with the engine's globals.
dv:execute('counter = 10 * __engineid')
dv:execute(function() counter = counter + 1 end)
local got = dv:pull('counter')
assert(got[1] == 10 * ids[1] + 1 and got[2] == 10 * ids[2] + 1, 'execute keeps globals')

-- push/pull: numbers, strings, tables, tensors small and large (shared memory locally).
local big = torch.DoubleTensor(300000):random(1000)
dv:push{ a = 1.5, s = 'text', t = { x = { 1, 2, 3 } }, small = torch.IntTensor{ 4, 5 }, big = big }
local pulled = dv:pull{ 'a', 's', 't' }
for i = 1, 2 do
   assert(pulled[i][1] == 1.5 and pulled[i][2] == 'text' and pulled[i][3].x[3] == 3, 'pull of a list of names')
end
local bigs = dv:pull('big')
assert(torch.typename(bigs[1]) == 'torch.DoubleTensor' and bigs[1]:equal(big) and bigs[2]:equal(big), 'large tensors')
assert(dv:pull('small')[2]:equal(torch.IntTensor{ 4, 5 }))
assert(dv:pull('nothing_here')[1] == nil)

-- apply: functions with upvalues see the engine's globals; one result per engine, in order.
local k = 3
local r = dv:apply(function(x) return x * k + counter, 'ignored' end, 2)
assert(r[1] == 6 + 10 * ids[1] + 1 and r[2] == 6 + 10 * ids[2] + 1, 'apply with upvalues and globals')

-- A tensor made on an engine comes back (shared memory for the large one).
local made = dv:apply(function() return torch.FloatTensor(2 ^ 19):fill(__engineid) end)
assert(made[1]:size(1) == 2 ^ 19 and made[1]:min() == ids[1] and made[2]:max() == ids[2], 'results as tensors')

-- An engine's `require 'torch'` leaves torch, paths and include as globals, as in Torch7.
local globals = dv:apply(function()
   require 'torch'
   return type(torch) .. ' ' .. type(paths) .. ' ' .. type(include)
end)
assert(globals[1] == 'table table function' and globals[2] == globals[1], 'engine globals: ' .. tostring(globals[1]))

-- require on every engine, as a global.
dv:require('nn')
local has = dv:apply(function() return type(nn) == 'table' and nn.Linear ~= nil end)
assert(has[1] and has[2], 'require')

-- Values larger than a frame may be, both ways: many storages under the 1 MiB that puts one
-- beside the body (so all of them inside it) and a long string.
local many = {}
for i = 1, 24 do
   many[i] = torch.FloatTensor(220000):fill(i)
end
local long = string.rep('0123456789', 2e6)
dv:push{ many = many, long = long }
local back = dv:pull('many')
assert(#back[2] == 24 and back[2][24]:equal(many[24]) and back[1][1]:equal(many[1]), 'a value of 21 MB')
assert(dv:pull('long')[1] == long, 'a string of 20 MB')
local echoed = dv:apply(function(t, s) return #t, #s, t[7]:sum() end, many, long)
assert(echoed[1] == 24, 'apply with a 41 MB argument')
dv:execute('many, long = nil, nil')

-- scatter/gather of a tensor and of a list, uneven sizes.
dv:scatter('part', torch.range(1, 7))
local sizes = dv:apply(function() return part:size(1) end)
assert(sizes[1] == 4 and sizes[2] == 3, 'scatter splits along the first dimension')
assert(dv:gather('part'):equal(torch.range(1, 7)), 'gather joins the parts in order')
dv:scatter('items', { 'a', 'b', 'c' })
assert(table.concat(dv:gather('items'), '') == 'abc')

-- map: the list split between engines.
local squares = dv:map(function(x) return x * x end, { 1, 2, 3, 4, 5 })
assert(table.concat(squares, ',') == '1,4,9,16,25', 'direct map')

-- sugar: dv.name = value, dv.name
dv.sugar = 'sweet'
assert(dv.sugar[1] == 'sweet' and dv.sugar[2] == 'sweet')

-- One engine only.
local one = c:direct_view(ids[2])
one:execute('only_here = true')
local both = dv:pull('only_here')
assert(both[1] == nil and both[2] == true, 'a view of one engine')
assert(#one:targets() == 1)

-- Non-blocking calls give AsyncResults.
local ar = dv:apply_with({ block = false }, function() return __engineid end)
assert(getmetatable(ar) == cluster.AsyncResult)
assert(ar:wait(30) and ar:ready() and ar:progress() == 2)
local ids_back = ar:get()
assert(ids_back[1] == ids[1] and ids_back[2] == ids[2])
assert(ar.metadata[1].engine == ids[1] and ar.metadata[2].engine == ids[2] and ar:elapsed() >= 0)

c:close()
print('ok')
