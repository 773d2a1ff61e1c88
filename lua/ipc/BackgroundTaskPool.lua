-- BackgroundTaskPool(poolSize[, {closeOnLastTask = bool}]): functions run on a pool of ipc.map
-- worker threads. Tasks and results travel over one anonymous workqueue: this thread (its owner)
-- writes tasks and reads results, the workers do the reverse.
--
--    local pool = BackgroundTaskPool(4)
--    local id = pool.addTask(function(a, b) return a + b end, 1, 2)
--    pool.isDone([id[, block]])   -- all tasks (or task `id`) finished?
--    pool.getResult([id])         -- waits; the task's results, or raises its error
--
-- A task function runs in a fresh Lua state, so it must not have upvalues (write it as a
-- self-contained function and `require` what it needs inside).
local ipc = require 'libipc'

-- Runs in each worker thread; `q` is the pool's queue. Self-contained: no upvalues.
local function worker(q)
   while true do
      local task = q:read()
      if task == nil then break end
      local function collect(ok, ...)
         if ok then
            return { id = task.id, n = select('#', ...), values = { ... } }
         end
         return { id = task.id, failure = (...) }
      end
      local result = collect(pcall(task.func, unpack(task.args, 1, task.nargs)))
      local sent, err = pcall(q.write, q, result)
      if not sent then
         -- A result that cannot cross threads (a closure, say) fails its task instead of the worker.
         q:write({ id = task.id, failure = 'task ' .. tostring(task.id) .. ': cannot return its result: ' .. tostring(err) })
      end
   end
end

local function BackgroundTaskPool(poolSize, opt)
   if type(poolSize) ~= 'number' or poolSize < 1 then
      error('BackgroundTaskPool: the pool size must be a number of at least 1, got ' .. tostring(poolSize), 2)
   end
   if opt ~= nil and type(opt) ~= 'table' then
      error('BackgroundTaskPool: options must be a table, got ' .. type(opt), 2)
   end
   poolSize = math.floor(poolSize)
   local closeOnLastTask = opt ~= nil and opt.closeOnLastTask == true

   local q = ipc.workqueue()
   local map = ipc.map(poolSize, worker, q)
   local numTasks, numResults = 0, 0
   local results = {} -- id -> result not yet taken by getResult
   local finished = {} -- id -> true once its result arrived (taken or not)

   local pool = {}

   local function close()
      if map then
         for _ = 1, poolSize do q:write(nil) end
         local m = map
         map = nil
         m:join()
      end
   end

   -- Reads results (waiting for them when `shouldBlock` is true) until every task is in, task
   -- `id` is in, or (not blocking) none is waiting.
   function pool.isDone(id, shouldBlock)
      while numResults < numTasks and not (id ~= nil and finished[id]) do
         local r = q:read(shouldBlock ~= true)
         if r == nil then break end
         results[r.id] = r
         finished[r.id] = true
         numResults = numResults + 1
      end
      return numResults == numTasks or (id ~= nil and finished[id] == true)
   end

   function pool.hasTask()
      return numResults < numTasks
   end

   function pool.addTask(func, ...)
      assert(type(func) == 'function', 'BackgroundTaskPool.addTask: a function expected, got ' .. type(func))
      if not map then error('BackgroundTaskPool.addTask: the pool is closed', 2) end
      -- Keep the queue moving: take finished results before adding more work.
      pool.isDone()
      local id = numTasks + 1
      q:write({ id = id, func = func, args = { ... }, nargs = select('#', ...) })
      numTasks = id
      return id
   end

   -- The results of task `id` (by default, of the task that finished last), once it finished.
   -- Raises the task's error if it failed. A result is handed out once; asking again returns nothing.
   function pool.getResult(id)
      pool.isDone(id, true)
      id = id or numResults
      if closeOnLastTask and numResults == numTasks then close() end
      local r = results[id]
      if r == nil then return end
      results[id] = nil
      if r.failure ~= nil then error(r.failure, 0) end
      return unpack(r.values, 1, r.n)
   end

   -- Stops the workers once the tasks already added are done (not in torch-ipc's API).
   pool.close = close

   return pool
end

return BackgroundTaskPool
