-- Workers' states collect their garbage: a job making a million tables leaves a few MiB, not
-- hundreds (in threads' pool and in ipc.map alike).
local threads = require 'threads'
local ipc = require 'libipc'

local function churn()
   for i = 1, 1e6 do
      churned = { i, i } -- a global: the compiler cannot sink the allocation
   end
   churned = nil
   return collectgarbage('count') / 1024
end

local pool = threads.Threads(1)
local mib
pool:addjob(churn, function(m) mib = m end)
pool:synchronize()
pool:terminate()
assert(mib < 16, ('a pool worker holds %.1f MiB after the job'):format(mib))
mib = ipc.map(1, churn):join()
assert(mib < 16, ('an ipc.map worker holds %.1f MiB after the job'):format(mib))
print('ok')
