-- threads.safe(func[, mutex]): func wrapped so that one call at a time runs, across every thread
-- it is sent to. The wrapper finds the mutex by number in each thread; the mutex lives while the
-- wrapper made here does (it holds the mutex in its environment, which packing leaves behind).
return function(func, mutex)
   local threads = require 'threads'
   if type(func) ~= 'function' then
      error('threads.safe: function, [mutex] expected, got ' .. type(func), 2)
   end
   if mutex ~= nil and not pcall(function() return mutex:id() end) then
      error('threads.safe: the second argument must be a threads.Mutex', 2)
   end
   mutex = mutex or threads.Mutex()
   local id = mutex:id()
   local function unlocked(m, ok, ...)
      m:unlock()
      if not ok then
         error((...), 0)
      end
      return ...
   end
   local safe = function(...)
      local m = require('threads').Mutex(id)
      m:lock()
      return unlocked(m, pcall(func, ...))
   end
   setfenv(safe, setmetatable({ __threads_safe_mutex = mutex }, { __index = _G }))
   return safe
end
