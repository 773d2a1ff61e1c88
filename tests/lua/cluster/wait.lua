-- Waits for arg[2] engines of cluster arg[1], prints their pids.
local c = require('cluster').client(arg[1])
c:wait_for_engines(tonumber(arg[2]), 30)
for _, e in ipairs(c:status()) do
   print('engine pid ' .. e.pid)
end
c:close()
print('ok')
