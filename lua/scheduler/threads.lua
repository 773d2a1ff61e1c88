-- The scheduler's workers as threads of this process (libthreads' pool): each has a Lua state of
-- its own, keeps the callables it is sent, and shares tensors with this state by reference.
local C = require 'libthreads'

local Backend = {}
Backend.__index = Backend

function Backend.new(n, init)
   local core = C._pool(n, false)
   if init then
      for i = 1, n do
         core:add(i, -i, init, i)
      end
      for _ = 1, n do
         local id, thread, ok, err = core:take()
         if not ok then
            core:close(true)
            error(('scheduler.threads: init failed in worker %d: %s'):format(thread, tostring(err)), 0)
         end
         assert(id < 0)
      end
   end
   core:specific(false)
   return setmetatable({ core = core, n = n }, Backend)
end

function Backend:keep(key, callable)
   self.core:keep(key, callable)
end

-- A chunk: the runner kept under key over list[from .. from+n-1].
function Backend:submit(id, key, list, from, n)
   self.core:chunk(id, key, list, from, n)
end

local function chunk_out(id, _, ok, elapsed, errors, results)
   if not ok then
      return id, false, elapsed, false
   end
   return id, true, results, false, elapsed, errors
end

-- The next chunk back: its id, ok, its results (a list) or a message, whether the worker died
-- (threads do not), the chunk's time and its errors by position.
function Backend:next()
   return chunk_out(self.core:take())
end

function Backend:close()
   self.core:close(true)
end

return Backend
