-- BackgroundTask(func, ...): func(...) run in a worker thread of its own.
--
--    local task = BackgroundTask(function(n) return n * 2 end, 21)
--    task.isDone()     -- finished?
--    task.getResult()  -- waits; func's results, or raises its error
--
-- As with every ipc thread, func must not have upvalues. The thread ends with the task.
local BackgroundTaskPool = require 'ipc.BackgroundTaskPool'

local function BackgroundTask(func, ...)
   if type(func) ~= 'function' then
      error('BackgroundTask: a function expected, got ' .. type(func), 2)
   end
   local pool = BackgroundTaskPool(1, { closeOnLastTask = true })
   pool.addTask(func, ...)
   return {
      isDone = function() return pool.isDone() end,
      getResult = function() return pool.getResult() end,
   }
end

return BackgroundTask
