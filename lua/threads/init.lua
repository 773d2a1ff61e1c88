-- require 'threads': torch/threads' API. A pool of Lua states on OS threads (threads.Threads),
-- the low-level Thread, Mutex and Condition (libthreads, src/threads), and threads.safe.
local C = require 'libthreads'

local threads = {}
threads.Thread = C.Thread
threads.Mutex = C.Mutex
threads.Condition = C.Condition
threads.Threads = require 'threads.threads'
threads.safe = require 'threads.safe'

-- As in torch/threads, the module itself is the pool's constructor: `threads(4)`, and
-- `threads.serialization(name)`.
setmetatable(threads, getmetatable(threads.Threads))

return threads
