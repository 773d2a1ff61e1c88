-- scheduler.remote: workers over ssh (arg[1] the protocol, arg[2] the th to run there).
local scheduler = require 'scheduler'
local parallel = require 'parallel'
parallel.ip = '127.0.0.1'
local protocol, th = arg[1], arg[2]
local s = scheduler.remote({ { ip = 'testhost', cores = 2, lua = th, protocol = protocol },
   { ip = 'testhost2', cores = 1, lua = th, protocol = protocol } })
for i = 1, 200 do s:add_task(torch.Tensor(3):fill(i), function(t) return t:sum() end) end
local r = s:get_results()
for i = 1, 200 do assert(r[i] == 3 * i, tostring(r[i])) end
s:add_task(1, function() error('remote failure') end)
local ok, err = pcall(s.get_results, s)
assert(not ok and err:find('task 1 failed') and err:find('remote failure'), err)
s:shutdown()
print('ok')
