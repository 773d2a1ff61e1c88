-- The scheduler's workers as threads of this process (libthreads' pool): each has a Lua state of
-- its own, keeps the callables it is sent, and shares tensors with this state by reference.
--
-- A chunk of numbers travels as one block (scheduler.blocks): a DoubleTensor, shared, that the
-- worker cuts back into numbers and fills again with the results. The pool would otherwise copy
-- each number between the two states through the C API, at several times the cost. Such chunks
-- go to the runner kept under the negated key, which wraps the plain one.
local C = require 'libthreads'
local blocks = require 'scheduler.blocks'

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
   return setmetatable({
      core = core,
      n = n,
      runners = {},    -- key -> the runner kept under it
      block_kept = {}, -- key -> true once its block runner is kept under -key
      blocked = {},    -- chunk id -> true while a chunk sent as a block is out
   }, Backend)
end

-- What a worker runs for a chunk sent as a block: the plain runner over the block's numbers; the
-- results go back as a block when they are numbers too, else as the list (the pool passes it,
-- tensors in it shared as any result's are).
local function block_runner(runner)
   return function(list)
      local blocks = require 'scheduler.blocks'
      local values = blocks.unstack(list[1])
      local n = #values
      local elapsed, errors = runner(values, n)
      list[1] = errors == nil and blocks.stack_numbers(values, 1, n) or values
      return elapsed, errors
   end
end

-- A runner is kept once per key (scheduler/init.lua makes a new key for each callable), and
-- forgotten with nil. Its block runner goes to the workers with the first chunk of numbers that
-- needs it, and is forgotten with it.
function Backend:keep(key, runner)
   self.core:keep(key, runner)
   self.runners[key] = runner
   if runner == nil and self.block_kept[key] then
      self.core:keep(-key, nil)
      self.block_kept[key] = nil
   end
end

-- A chunk: the runner kept under key over list[from .. from+n-1].
function Backend:submit(id, key, list, from, n)
   local block = n >= 2 and blocks.stack_numbers(list, from, n)
   if block then
      if not self.block_kept[key] then
         self.core:keep(-key, block_runner(self.runners[key]))
         self.block_kept[key] = true
      end
      self.blocked[id] = true
      self.core:chunk(id, -key, { block }, 1, 1)
   else
      self.core:chunk(id, key, list, from, n)
   end
end

-- The next chunk back: its id, ok, its results (a list) or a message, whether the worker died
-- (threads do not), the chunk's time and its errors by position.
function Backend:next()
   local id, _, ok, elapsed, errors, results = self.core:take()
   local blocked = self.blocked[id]
   self.blocked[id] = nil
   if not ok then
      return id, false, elapsed, false
   end
   if blocked then
      local r = results[1]
      results = type(r) == 'table' and r or blocks.unstack(r)
   end
   return id, true, results, false, elapsed, errors
end

function Backend:close()
   self.core:close(true)
end

return Backend
