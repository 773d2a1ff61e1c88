-- The scheduler's workers as the engines of a running cluster (`thcluster start`, require
-- 'cluster'). Each chunk is one load-balanced task: the controller hands it to the least loaded
-- engine. The chunk carries its runner (the callable and its upvalues), so that an engine started
-- again after a death, or one that joined later, runs it too; the scheduler's chunks are sized
-- so that this costs a small part of their time. An engine's death comes back as a failure
-- marked `dead`, which the scheduler runs again elsewhere when asked to retry.
local cluster = require 'cluster'

local Backend = {}
Backend.__index = Backend

local unpack = unpack or table.unpack

-- profile: the cluster's profile (nil: 'default'); init: run once on every engine before its
-- first task of this scheduler (also on engines that join or are restarted later).
function Backend.new(profile, init)
   local client = cluster.client(profile)
   local ids = client:wait_for_engines(1, 60)
   local self = setmetatable({
      client = client,
      lbv = client:load_balanced_view(),
      n = #ids,
      init = init,
      -- Names this scheduler's init on the engines.
      token = tostring(os.time()) .. '_' .. tostring(math.random(1e9)) .. '_' .. tostring({}):match('0x%x+'),
      runners = {}, -- key -> runner
      pending = {}, -- task id -> chunk id, in submission order below
      order = {},   -- task ids in flight
   }, Backend)
   if init then
      local ok, err = pcall(function()
         client:direct_view():apply(function(token, f)
            __scheduler_inits = __scheduler_inits or {}
            __scheduler_inits[token] = true
            f()
         end, self.token, init)
      end)
      if not ok then
         client:close()
         error('scheduler.cluster: init failed: ' .. tostring(err), 0)
      end
   end
   return self
end

function Backend:keep(key, runner)
   self.runners[key] = runner
end

-- Runs a chunk's runner on an engine (after the scheduler's init, the first time the engine sees
-- this scheduler); what it returns comes back packed.
local function call(token, init, runner, ...)
   if init then
      __scheduler_inits = __scheduler_inits or {}
      if not __scheduler_inits[token] then
         __scheduler_inits[token] = true
         init()
      end
   end
   -- The runner turns the list into the results in place (scheduler/init.lua).
   local n = select('#', ...)
   local list = { ... }
   local elapsed, errors = runner(list, n)
   -- The engine's own unpack (a global): a builtin cannot travel as an upvalue of this function.
   return elapsed, errors, (_G.unpack or table.unpack)(list, 1, n)
end

-- A chunk: the runner kept under key over list[from .. from+n-1].
function Backend:submit(id, key, list, from, n)
   local task = {
      op = 'call',
      fn = call,
      args = { n = n + 3, self.token, self.init or false, self.runners[key], unpack(list, from, from + n - 1) },
   }
   local tid = self.client._c:submit(task, nil, 0, nil, 'scheduler')
   self.pending[tid] = id
   self.order[#self.order + 1] = tid
end

-- The next chunk back: its id, ok, its results (a list) or a message, whether the engine died,
-- the chunk's time and its errors by position.
function Backend:next()
   local c = self.client._c
   local tid, gone = c:wait_any(self.order)
   if not tid then
      error('scheduler: ' .. tostring(gone), 0)
   end
   for i, t in ipairs(self.order) do
      if t == tid then
         table.remove(self.order, i)
         break
      end
   end
   local id = self.pending[tid]
   self.pending[tid] = nil
   local kind, v = c:take(tid)
   if kind == 'ok' then
      return id, true, { unpack(v, 3, v.n) }, false, v[1], v[2]
   end
   return id, false, v, kind == 'lost'
end

function Backend:close()
   if next(self.pending) then
      self.client._c:forget(self.order)
   end
   self.client:close()
end

return Backend
