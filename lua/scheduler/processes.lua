-- The scheduler's workers as th processes (lua---parallel's children), local or over ssh. Each
-- worker keeps the callables it is sent and answers each task with {index, ok, result}. A few
-- chunks are kept in flight per worker, so that a worker never waits for the next one; the rest
-- wait here. A worker runs its chunks in the order sent, so when it dies, the oldest chunk in
-- flight is the one it was running: that one comes back as a failure marked `dead` (the
-- scheduler runs it again elsewhere when asked to retry), the others go to other workers as if
-- never sent, and the remaining workers go on.
local parallel = require 'parallel'
local lib = require 'libparallel'
local blocks = require 'scheduler.blocks'

local Backend = {}
Backend.__index = Backend

-- Tasks in flight per worker.
local DEPTH = 4

-- A chunk's data as they travel: {n =, block =} when they are numbers or tensors of one type
-- and size (one tensor of them all, its values in one piece rather than a .t7 entry or object
-- each, cut back into numbers or tensors on the other side: libthreads' _stack and _unstack), else
-- {n =, ...}.
local function pack(list, from, n)
   if n >= 2 then
      local block = blocks.stack(list, from, n)
      if block then return { n = n, block = block } end
   end
   local datas = { n = n }
   for i = 1, n do datas[i] = list[from + i - 1] end
   return datas
end

-- What each worker runs: messages {'run', chunk id, key, data}, {'keep', key, runner},
-- {'init', f}, {'quit'}.
local function worker_loop()
   local parallel = require 'parallel'
   local kept = {}
   local traceback, tostring = debug.traceback, tostring
   local function traced(e) return traceback(tostring(e), 1) end
   local function missing() error('the callable was not received', 0) end
   local blocks = require 'scheduler.blocks'
   -- The runner turns the list into the results in place (scheduler/init.lua); the results
   -- travel back as blocks when they can.
   local function run(runner, d)
      local list, n = d, d.n
      if d.block then
         list = blocks.unstack(d.block)
      end
      local elapsed, errors = runner(list, n)
      if n >= 2 and errors == nil then
         local block = blocks.stack(list, 1, n)
         if block then
            return { elapsed = elapsed, block = block }
         end
      end
      list.n, list.elapsed, list.errors = n, elapsed, errors
      return list
   end
   while true do
      local m = parallel.parent:receive()
      local kind = m[1]
      if kind == 'run' then
         -- The runner catches each task's error itself (scheduler/init.lua).
         local ok, r = pcall(run, kept[m[3]] or missing, m[4])
         parallel.parent:send({ m[2], ok, r })
      elseif kind == 'keep' then
         kept[m[2]] = m[3]
      elseif kind == 'init' then
         local ok, r = xpcall(m[2], traced)
         parallel.parent:send({ 0, ok, r })
      elseif kind == 'quit' then
         break
      end
   end
end

-- entries: {{n, ip=, protocol=, lua=}, ...} as parallel.nfork takes them.
function Backend.new(entries, init)
   local children = parallel.nfork(entries)
   local self = setmetatable({
      workers = {},   -- live children, by child id
      ids = {},       -- their ids, for receive_any
      inflight = {},  -- child id -> chunks sent, oldest first: {head =, tail =, [i] = {id, key, datas}}
      load = {},      -- child id -> tasks in flight
      backlog = {},   -- {index, key, data} waiting for a worker, from head to tail
      head = 1,
      tail = 0,
      reports = {},   -- failures to hand out (tasks of dead workers)
      broken = {},    -- child id -> why a send to it failed
      kept = {},      -- key -> callable, to send to every worker
      n = 0,
   }, Backend)
   for _, c in ipairs(children) do
      self.workers[c.id] = c
      self.inflight[c.id] = { head = 1, tail = 0 }
      self.load[c.id] = 0
      self.n = self.n + 1
   end
   self:refresh()
   local ok, err = pcall(function()
      children:exec(worker_loop)
      if init then
         for _, c in pairs(self.workers) do c:send({ 'init', init }) end
         for _, c in pairs(self.workers) do
            local r = c:receive()
            if not r[2] then
               error(('scheduler: init failed in worker %d: %s'):format(c.id, tostring(r[3])), 0)
            end
         end
      end
   end)
   if not ok then
      self:close()
      error(err, 0)
   end
   return self
end

function Backend:refresh()
   local ids = {}
   for id in pairs(self.workers) do ids[#ids + 1] = id end
   table.sort(ids)
   self.ids = ids
end

-- A worker that died: the chunk it was running fails, marked dead; the ones it had not started
-- wait for another worker.
function Backend:lose(id, why)
   local q = self.inflight[id] or { head = 1, tail = 0 }
   self.workers[id], self.inflight[id], self.load[id], self.broken[id] = nil, nil, nil, nil
   self.n = self.n - 1
   self:refresh()
   pcall(lib.kill, id, 'it died')
   for i = q.head, q.tail do
      local c = q[i]
      if i == q.head then
         self.reports[#self.reports + 1] = { c[1], false, ('worker %d died: %s'):format(id, why), true }
      else
         self:submit_packed(c[1], c[2], c[3])
      end
   end
end

-- A send that fails marks the worker broken: nothing more goes to it, and what it sent before it
-- went (results of earlier chunks) is still read before it counts as lost.
local function send(self, id, msg)
   local ok, err = pcall(lib.send, id, msg)
   if not ok then
      self.broken[id] = tostring(err)
   end
   return ok
end

function Backend:keep(key, callable)
   self.kept[key] = callable
   for id in pairs(self.workers) do
      send(self, id, { 'keep', key, callable })
   end
end

-- The least loaded live worker with room, if any.
local function free_worker(self)
   local best, least = nil, DEPTH
   for _, id in ipairs(self.ids) do
      local l = self.load[id]
      if l < least and not self.broken[id] then best, least = id, l end
   end
   return best
end

local function dispatch(self, id, chunk, key, datas)
   if send(self, id, { 'run', chunk, key, datas }) then
      local q = self.inflight[id]
      q.tail = q.tail + 1
      q[q.tail] = { chunk, key, datas }
      self.load[id] = self.load[id] + 1
      return true
   end
   return false
end

-- A chunk: the runner kept under key over list[from .. from+n-1].
function Backend:submit(index, key, list, from, n)
   return self:submit_packed(index, key, pack(list, from, n))
end

function Backend:submit_packed(index, key, data)
   while true do
      local id = free_worker(self)
      if id == nil then
         if self.n == 0 then
            self.reports[#self.reports + 1] = { index, false, 'no worker is left alive', true }
         else
            self.tail = self.tail + 1
            self.backlog[self.tail] = { index, key, data }
         end
         return
      end
      if dispatch(self, id, index, key, data) then return end
   end
end

-- Feeds waiting tasks to the workers with room.
local function feed(self)
   while self.head <= self.tail do
      local id = free_worker(self)
      if id == nil then break end
      local t = self.backlog[self.head]
      if dispatch(self, id, t[1], t[2], t[3]) then
         self.backlog[self.head] = nil
         self.head = self.head + 1
      end
   end
   if self.n == 0 then
      for i = self.head, self.tail do
         local t = self.backlog[i]
         self.reports[#self.reports + 1] = { t[1], false, 'no worker is left alive', true }
      end
   end
   if self.head > self.tail or self.n == 0 then
      self.backlog, self.head, self.tail = {}, 1, 0
   end
end

-- index, ok, the results (a list) or a message, dead, the chunk's time and its errors.
function Backend:next()
   while true do
      feed(self)
      local r = table.remove(self.reports)
      if r then return r[1], r[2], r[3], r[4] end
      local busy = {}
      for _, id in ipairs(self.ids) do
         if self.load[id] > 0 then
            busy[#busy + 1] = id
         elseif self.broken[id] then
            self:lose(id, self.broken[id])
         end
      end
      if #busy == 0 and #self.reports > 0 then
         local r = table.remove(self.reports)
         return r[1], r[2], r[3], r[4]
      end
      if #busy == 0 then
         error('scheduler: internal error: waiting with no task in flight', 0)
      end
      local id, ok, msg = lib.receive_any(busy)
      if ok then
         local q = self.inflight[id]
         if q.head <= q.tail and q[q.head][1] == msg[1] then
            q[q.head] = nil
            q.head = q.head + 1
            self.load[id] = self.load[id] - 1
         end
         local out = msg[3]
         if msg[2] and type(out) == 'table' then
            local results = out.block and blocks.unstack(out.block) or out
            return msg[1], true, results, false, out.elapsed, out.errors
         end
         return msg[1], msg[2], out, false
      end
      self:lose(id, msg)
   end
end

function Backend:close()
   for id, c in pairs(self.workers) do
      if pcall(lib.send, id, { 'quit' }) then
         pcall(parallel.sync, c)
      else
         pcall(lib.kill, id, 'the scheduler shut down')
      end
   end
   self.workers, self.ids, self.n = {}, {}, 0
end

return Backend
