-- threads.Threads(N, init1, init2, ...): N threads, each with a fresh Lua state (torch loaded,
-- `__threadid` set to its number), running the init functions in order. Jobs go to any free
-- thread, or in specific mode to a chosen one; each job's results come back to this state,
-- where its end callback runs (in `dojob`, `synchronize`, or `addjob` when the queue is full).
--
-- The threads, their queues and the packing of values are native (libthreads' `_pool`); the end
-- callbacks stay here, so an end callback may yield or raise like any Lua function.
local C = require 'libthreads'
local unpack = unpack or table.unpack

local Threads = {}
Threads.__index = Threads
Threads.__serialize = 'threads.serialize'

-- The serializers torch/threads ships, and whether each copies storages (true) or shares them.
local copies = { ['threads.serialize'] = true, ['threads.sharedserialize'] = false }

local ctor = setmetatable({}, {
   __index = Threads,
   __newindex = Threads,
   __call = function(_, ...) return Threads.new(...) end,
})

function Threads.serialization(name)
   if name == nil then
      return Threads.__serialize
   end
   if type(name) ~= 'string' then
      error('threads.Threads.serialization: a module name expected, got ' .. type(name), 2)
   end
   if copies[name] == nil then
      error(("threads.Threads.serialization: unknown serialization '%s' (there are "
         .. "'threads.serialize', which copies tensors, and 'threads.sharedserialize', which "
         .. "shares them)"):format(name), 2)
   end
   Threads.__serialize = name
end

local function checkrunning(self, method)
   if not self.__running then
      error(('threads.Threads:%s: the pool is terminated'):format(method), 3)
   end
end

-- Called when the pool is collected: finish its jobs and end its threads, as terminate does. An
-- error here cannot reach the script, so it is reported on stderr.
local function collected(self)
   local ok, err = pcall(Threads.terminate, self)
   if not ok then
      io.stderr:write('threads: while a pool was collected: ', tostring(err), '\n')
   end
end

function Threads.new(N, ...)
   if type(N) ~= 'number' or N < 1 or N % 1 ~= 0 then
      error('threads.Threads: a number of threads (at least 1) expected, got '
         .. (type(N) == 'number' and tostring(N) or type(N)), 2)
   end
   local funcs = { ... }
   for i = 1, select('#', ...) do
      if type(funcs[i]) ~= 'function' then
         error(('threads.Threads: init #%d must be a function, got %s'):format(i, type(funcs[i])), 2)
      end
   end
   if #funcs == 0 then
      funcs = { function() end }
   end
   local self = setmetatable({
      N = N,
      endcallbacks = { n = 0 },
      nextid = 0,
      errors = false,
      __specific = true,
      __running = true,
   }, Threads)
   self.core = C._pool(N, copies[Threads.__serialize])
   self.__gc__ = newproxy(true)
   getmetatable(self.__gc__).__gc = function() collected(self) end

   -- Each init function runs on every thread, in order; the last one's results are returned.
   local initres = {}
   local ok, err = pcall(function()
      for j = 1, #funcs do
         for i = 1, N do
            self:addjob(i, funcs[j], j == #funcs and function(...)
               table.insert(initres, { ... })
            end or nil, i)
         end
      end
      self:specific(false)
   end)
   if not ok then
      self.__running = false
      self.core:close(true)
      error(err, 0)
   end
   return self, initres
end

function Threads:isrunning()
   return self.__running
end

function Threads:specific(flag)
   checkrunning(self, 'specific')
   if flag == nil then
      return self.__specific
   end
   if type(flag) ~= 'boolean' then
      error('threads.Threads:specific: boolean expected, got ' .. type(flag), 2)
   end
   self:synchronize()
   self.core:specific(flag)
   self.__specific = flag
end

local function finish(self, id, thread, ok, ...)
   local endcallbacks = self.endcallbacks
   local endcallback = endcallbacks[id]
   endcallbacks[id] = nil
   endcallbacks.n = endcallbacks.n - 1
   if not ok then
      self.errors = true
      error(('[thread %d callback] %s'):format(thread, tostring((...))), 0)
   end
   if endcallback then
      local n, args = select('#', ...), { ... }
      local eok, msg = xpcall(function() return endcallback(unpack(args, 1, n)) end, debug.traceback)
      if not eok then
         self.errors = true
         error(('[thread %d endcallback] %s'):format(thread, tostring(msg)), 0)
      end
   end
end

-- Waits for the next finished job and runs its end callback here.
function Threads:dojob()
   checkrunning(self, 'dojob')
   self.errors = false
   return finish(self, self.core:take())
end

function Threads:acceptsjob(idx)
   checkrunning(self, 'acceptsjob')
   if self.__specific then
      if type(idx) ~= 'number' or idx < 1 or idx > self.N or idx % 1 ~= 0 then
         error(('threads.Threads:acceptsjob: a thread index (1 to %d) expected in specific mode, got %s')
            :format(self.N, tostring(idx)), 2)
      end
   else
      idx = 0
   end
   -- As torch/threads' queues of N slots: a queue holding N jobs not yet taken is full.
   return self.core:waiting(idx) < self.N
end

function Threads:addjob(...)
   checkrunning(self, 'addjob')
   self.errors = false
   local idx, callback, endcallback, first
   if self.__specific then
      idx = ...
      if type(idx) ~= 'number' or idx < 1 or idx > self.N or idx % 1 ~= 0 then
         error(('threads.Threads:addjob: a thread index (1 to %d) expected in specific mode, got %s')
            :format(self.N, tostring(idx)), 2)
      end
      callback, endcallback = select(2, ...)
      first = 4
   else
      idx = 0
      callback, endcallback = ...
      first = 3
   end
   if type(callback) ~= 'function' then
      error('threads.Threads:addjob: function callback expected, got ' .. type(callback), 2)
   end
   if endcallback ~= nil and type(endcallback) ~= 'function' then
      error('threads.Threads:addjob: function (or nil) endcallback expected, got ' .. type(endcallback), 2)
   end
   while self.core:waiting(idx) >= self.N do
      self:dojob()
   end
   local id = self.nextid + 1
   self.nextid = id
   self.core:add(idx, id, callback, select(first, ...))
   self.endcallbacks[id] = endcallback or false
   self.endcallbacks.n = self.endcallbacks.n + 1
end

function Threads:hasjob()
   checkrunning(self, 'hasjob')
   return self.endcallbacks.n > 0
end

-- Kept for old scripts: errors are raised as they come.
function Threads:haserror()
   return false
end

function Threads:synchronize()
   if not self.__running then
      return
   end
   self.errors = false
   while self.endcallbacks.n > 0 do
      self:dojob()
   end
end

-- Runs every job still open (raising the first error once all are done), then ends the threads
-- and waits for them.
function Threads:terminate()
   if not self.__running then
      return
   end
   local first
   while self.endcallbacks.n > 0 do
      local before = self.endcallbacks.n
      local ok, err = pcall(self.dojob, self)
      if not ok then
         first = first or err
         if self.endcallbacks.n == before then
            break -- nothing finished: the wait itself failed (interrupted)
         end
      end
   end
   self.__running = false
   self.core:close(true)
   if first then
      error(first, 0)
   end
end

return ctor
