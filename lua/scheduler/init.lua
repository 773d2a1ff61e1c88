-- require 'scheduler': hand tasks to workers (threads, local processes, other machines) and get
-- their results back, in the manner of MDP's mdp.parallel schedulers. The code that makes tasks
-- does not care where they run:
--
--    local scheduler = require 'scheduler'
--    local s = scheduler.threads(4)                 -- or .processes(n), .remote{...}, .cluster()
--    for i = 1, 100 do s:add_task(i, function(x) return x * x end) end
--    local squares = s:get_results()                -- in the order the tasks were added
--    s:shutdown()
--
-- Options, the table after the size: results = 'ordered' (default) | 'unordered' | a function
-- (acc, result) -> acc folding each result in as it arrives (with `initial`); retries = n (a task
-- whose worker died runs again elsewhere, up to n times); max_open = n (add_task waits while n
-- tasks are open; by default as many as full chunks of short tasks need, at least 1024 or 64 per
-- worker); progress = true (a progress bar while get_results waits); init = function
-- run once in each worker.
--
-- A callable goes to each worker once (its bytecode and upvalues), then only the data travels:
-- make it once and pass it, or pass nil to reuse the last one.
local new_table = require 'table.new'

local scheduler = {}

local Scheduler = {}
Scheduler.__index = Scheduler

local raise = require('luatorch.check').raise

-- Errors name the function the user called and blame the user's line, however deep the check.
local function fail(fname, msg)
   raise('scheduler.' .. fname .. ': ' .. msg)
end

-- Result containers: add(index, value), or add_all(first, values, n) for the n results of the
-- tasks first .. first+n-1 at once; then result() once every task is in.
local containers = {}

-- add_all from add, for the containers that have no faster way.
local function each_added(c)
   local add = c.add
   function c.add_all(first, values, n)
      for i = 1, n do add(first + i - 1, values[i]) end
   end
   return c
end

-- The ordered list is made with room for the indices it will hold (`size`, when known), and grown
-- by doubling: chunks come back out of order, and a Lua table given index k beyond its array part
-- would keep it, and the rest of that chunk, in its hash part until enough of the gap below is
-- filled.
function containers.ordered(size)
   local c = { list = size and new_table(size, 0) or {}, n = 0, room = size or 0 }
   local function make_room(last)
      local room = math.max(last, 2 * c.room, 64)
      local list, old = new_table(room, 0), c.list
      for i = 1, c.n do list[i] = old[i] end
      c.list, c.room = list, room
   end
   function c.add(index, v)
      if index > c.room then make_room(index) end
      c.list[index] = v
      if index > c.n then c.n = index end
   end
   -- A chunk's results straight into their places: no call per task.
   function c.add_all(first, values, n)
      local at = first - 1
      if at + n > c.room then make_room(at + n) end
      local list = c.list
      for i = 1, n do list[at + i] = values[i] end
      if at + n > c.n then c.n = at + n end
   end
   function c.result()
      local r = c.list
      c.list, c.n, c.room = {}, 0, 0
      return r
   end
   return c
end

function containers.unordered()
   local c = { list = {}, n = 0 }
   function c.add(_, v)
      c.n = c.n + 1
      c.list[c.n] = v
   end
   function c.result()
      local r = c.list
      c.list, c.n = {}, 0
      return r
   end
   return each_added(c)
end

function containers.reduce(fold, initial)
   local c = {}
   local acc, started = initial, initial ~= nil
   function c.add(_, v)
      if started then
         acc = fold(acc, v)
      else
         acc, started = v, true
      end
   end
   function c.result()
      local r = acc
      acc, started = initial, initial ~= nil
      return r
   end
   return each_added(c)
end

local function container_of(fname, opts)
   local r = opts.results
   if r == nil or r == 'ordered' then
      return containers.ordered()
   elseif r == 'unordered' then
      return containers.unordered()
   elseif type(r) == 'function' then
      return containers.reduce(r, opts.initial)
   end
   fail(fname, "results must be 'ordered', 'unordered' or a function (acc, result) -> acc, got "
      .. tostring(r))
end

local known = { results = true, initial = true, retries = true, max_open = true, progress = true, init = true }

local function options(fname, opts, nworkers)
   if opts == nil then opts = {} end
   if type(opts) ~= 'table' then
      fail(fname, 'options must be a table, got ' .. type(opts))
   end
   for k in pairs(opts) do
      if not known[k] then
         fail(fname, "unknown option '" .. tostring(k) .. "'")
      end
   end
   local function count(name, default, least)
      local v = opts[name]
      if v == nil then return default end
      if type(v) ~= 'number' or v < least or v % 1 ~= 0 then
         fail(fname, ('%s must be a whole number of at least %d, got %s'):format(name, least, tostring(v)))
      end
      return v
   end
   if opts.init ~= nil and type(opts.init) ~= 'function' then
      fail(fname, 'init must be a function, got ' .. type(opts.init))
   end
   return {
      container = container_of(fname, opts),
      retries = count('retries', 0, 0),
      -- nil: as many as full chunks in flight need, at least min_open (see open_limit).
      max_open = count('max_open', nil, 1),
      min_open = math.max(1024, 64 * nworkers),
      progress = opts.progress and true or false,
      init = opts.init,
   }
end

local function count_arg(fname, n)
   if n == nil then
      return require('libthreads')._ncores()
   end
   if type(n) ~= 'number' or n < 1 or n % 1 ~= 0 then
      fail(fname, 'a number of workers (at least 1) expected, got ' .. tostring(n))
   end
   return n
end

local pace -- below

local function new(fname, backend, o)
   local self = setmetatable({
      fname = fname,
      backend = backend,
      o = o,
      container = o.container,
      keys = setmetatable({}, { __mode = 'k' }), -- callable -> key
      uses = {},      -- key -> open tasks using it
      callables = {}, -- key -> callable (while it is the last one or in use)
      nextkey = 0,
      last = nil,
      lastkey = nil,  -- the last callable's key
      chunk = 1,      -- tasks per chunk, open tasks at which add_task waits, chunks in flight at
      limit = 1,      -- which it gathers instead of sending (see pace)
      target = 1,
      added = 0,      -- tasks added since the last get_results (their indices)
      open = 0,       -- tasks gathered or in flight
      done = 0,
      buffer = {},    -- tasks gathered for the next chunk (all of one callable, bufkey)
      nbuf = 0,
      bufkey = nil,
      buffirst = nil, -- the index of the buffer's first task
      chunks = {},    -- chunk id -> {key, first index, count, data (when retrying), tries}
      nextchunk = 0,
      inflight = 0,   -- chunks sent and not yet back
      avg = nil,      -- measured seconds per task
      errors = {},
      running = true,
   }, Scheduler)
   pace(self)
   return self
end

function scheduler.threads(n, opts)
   n = count_arg('threads', n)
   local o = options('threads', opts, n)
   return new('threads', require('scheduler.threads').new(n, o.init), o)
end

function scheduler.processes(n, opts)
   n = count_arg('processes', n)
   local o = options('processes', opts, n)
   return new('processes', require('scheduler.processes').new({ { n } }, o.init), o)
end

-- hosts: {{ip=, cores=, lua=, protocol=}, ...}, as parallel.addremote takes them: `cores` workers
-- on each host, over ssh, dying with this process.
function scheduler.remote(hosts, opts)
   if type(hosts) ~= 'table' or #hosts == 0 then
      fail('remote', 'a list of hosts {ip=, cores=, lua=, protocol=} expected, got ' .. type(hosts))
   end
   local entries, total = {}, 0
   for i, h in ipairs(hosts) do
      if type(h) ~= 'table' or type(h.ip) ~= 'string' then
         fail('remote', ('host #%d must be a table with ip = <host name or address>'):format(i))
      end
      local cores = h.cores or 1
      if type(cores) ~= 'number' or cores < 1 or cores % 1 ~= 0 then
         fail('remote', ('host #%d: cores must be a whole number of at least 1'):format(i))
      end
      entries[i] = { cores, ip = h.ip, lua = h.lua, protocol = h.protocol }
      total = total + cores
   end
   local o = options('remote', opts, total)
   return new('remote', require('scheduler.processes').new(entries, o.init), o)
end

-- The engines of a running cluster (`thcluster start -n N [--profile P]`): profile nil is the
-- default one. The engines keep running after shutdown; only this scheduler's client goes.
function scheduler.cluster(profile, opts)
   if type(profile) == 'table' and opts == nil then
      profile, opts = nil, profile
   end
   if profile ~= nil and type(profile) ~= 'string' then
      fail('cluster', 'a profile name expected, got ' .. type(profile))
   end
   local o = options('cluster', opts, 1)
   local backend = require('scheduler.cluster').new(profile, o.init)
   o.min_open = math.max(1024, 64 * backend.n)
   return new('cluster', backend, o)
end

-- Runs f(s) and shuts s down afterwards, also when f raises; returns what f returns.
function scheduler.with(s, f)
   if getmetatable(s) ~= Scheduler then
      fail('with', 'a scheduler expected as argument #1')
   end
   if type(f) ~= 'function' then
      fail('with', 'a function expected as argument #2, got ' .. type(f))
   end
   local res = { n = 0 }
   local ok, err = xpcall(function()
      res = { n = 0 }
      local function keep(...) res = { n = select('#', ...), ... } end
      keep(f(s))
   end, debug.traceback)
   local sok, serr = pcall(s.shutdown, s)
   if not ok then error(err, 0) end
   if not sok then error(serr, 0) end
   return unpack(res, 1, res.n)
end

local function check_running(self, fname)
   if getmetatable(self) ~= Scheduler then
      raise('scheduler:' .. fname .. ': call it with a colon (s:' .. fname .. '(...))')
   end
   if not self.running then
      raise('scheduler:' .. fname .. ': the scheduler is shut down')
   end
end

-- Tasks travel in chunks: a chunk is one message to a worker, carrying several tasks' data
-- when tasks are short, so that the cost of a message (and of the handoff between the threads or
-- processes) is shared. The chunk size follows the measured time per task, aiming at chunks of
-- about CHUNK_TIME seconds, at most MAX_CHUNK tasks (and, when max_open is given, a share of it
-- that leaves room for the chunks in flight and the one gathering); a slow task goes alone.
local CHUNK_TIME = 0.002
local MAX_CHUNK = 8192

-- What the workers keep for a callable: a function running it over a chunk's data, a list of n
-- items that it turns into the results in place, each task under its own error handler, timing
-- the chunk. It returns the chunk's time and its errors by position (or nil). Its only upvalue is
-- the callable. The list travels whole: a chunk costs no table of arguments or results per task,
-- and plain values (numbers, strings) skip the serializer on their way between threads.
local function runner_for(callable)
   return function(out, n)
      local timer = __scheduler_timer
      if timer == nil then
         timer = require('torch').Timer()
         __scheduler_timer = timer
      end
      local traced = __scheduler_traced
      if traced == nil then
         traced = function(e)
            local tb = debug.traceback(tostring(e), 2)
            -- The frames from the worker's own loop down are noise.
            return (tb:gsub("\n%s*%[C%]: in function 'xpcall'.*$", ''))
         end
         __scheduler_traced = traced
      end
      local start = timer:time().real
      local errors = nil
      -- One protected call for the whole chunk, not one per task: a task that raises ends it,
      -- and the next call goes on after that task.
      local i = 0
      local function run_rest()
         while i < n do
            i = i + 1
            out[i] = callable(out[i])
         end
      end
      while i < n do
         local ok, e = xpcall(run_rest, traced)
         if not ok then
            out[i] = nil
            errors = errors or {}
            errors[i] = e
         end
      end
      return timer:time().real - start, errors
   end
end

-- A callable's key in the workers: its runner is sent to them the first time it is seen.
local function key_of(self, callable)
   local key = self.keys[callable]
   if key == nil then
      self.nextkey = self.nextkey + 1
      key = self.nextkey
      self.backend:keep(key, runner_for(callable))
      self.keys[callable] = key
      self.callables[key] = callable
      self.uses[key] = 0
   end
   return key
end

-- Once a callable is neither the last one nor used by an open chunk, the workers forget it: a
-- script making a new closure per task does not fill the workers' memory.
local function release(self, key)
   if self.uses[key] == 0 and self.callables[key] ~= self.last then
      local callable = self.callables[key]
      self.callables[key], self.uses[key] = nil, nil
      if callable ~= nil then self.keys[callable] = nil end
      self.backend:keep(key, nil)
   end
end

-- Chunks in flight at which add_task stops sending at once and gathers a chunk instead.
local function target(self)
   return 2 * math.max(1, self.backend.n)
end

local function chunk_size(self)
   if self.avg == nil then return 1 end
   local size = math.min(MAX_CHUNK, math.floor(CHUNK_TIME / math.max(self.avg, 1e-9)))
   if self.o.max_open then
      size = math.min(size, math.floor(self.o.max_open / (target(self) + 1)))
   end
   return math.max(1, size)
end

-- Works out add_task's pace from the time per task and the workers alive, once per chunk back
-- rather than per task: the chunk size, the chunks in flight at which it gathers a chunk instead
-- of sending at once, and the open tasks at which it waits: max_open when given; else room for
-- full chunks in flight and one gathering, and at least min_open. Slow tasks (large data among
-- them) travel in small chunks, so the bound stays near min_open for them: it grows only for
-- tasks that are done fast.
pace = function(self)
   self.target = target(self)
   self.chunk = chunk_size(self)
   self.limit = self.o.max_open or math.max(self.o.min_open, (self.target + 1) * self.chunk)
end

-- Sends a chunk: the tasks first .. first+n-1, whose data are list[from .. from+n-1]. The list is
-- kept until the chunk is back, to run it again after a worker's death.
local function send_chunk(self, key, first, list, from, n)
   self.nextchunk = self.nextchunk + 1
   local id = self.nextchunk
   self.chunks[id] = { key, first, n, list, from, tries = 0 }
   self.uses[key] = self.uses[key] + 1
   self.inflight = self.inflight + 1
   self.backend:submit(id, key, list, from, n)
end

-- Sends the gathered tasks, as `parts` chunks (so that idle workers share them).
local function flush(self, parts)
   local buf = self.buffer
   local n = self.nbuf
   if n == 0 then return end
   self.buffer, self.nbuf = {}, 0
   parts = math.max(1, math.min(parts or 1, n))
   local from = 1
   for p = 1, parts do
      local to = math.floor(n * p / parts)
      send_chunk(self, self.bufkey, self.buffirst + from - 1, buf, from, to - from + 1)
      from = to + 1
   end
end

local function failed(self, index, message, dead)
   self.errors[#self.errors + 1] = { index = index, message = message, dead = dead }
end

-- Takes the next chunk's results from the workers into the container (and the errors).
local function collect_one(self)
   local id, ok, out, dead, elapsed, errors = self.backend:next()
   local chunk = self.chunks[id]
   if chunk == nil then
      -- Not a chunk: a callable that could not be loaded in a worker, say.
      return failed(self, 0, tostring(out), false)
   end
   if not ok and dead and chunk.tries < self.o.retries then
      chunk.tries = chunk.tries + 1
      return self.backend:submit(id, chunk[1], chunk[4], chunk[5], chunk[3])
   end
   self.chunks[id] = nil
   self.inflight = self.inflight - 1
   local key, first, n = chunk[1], chunk[2], chunk[3]
   if ok then
      if errors == nil then
         self.container.add_all(first, out, n)
      else
         local add = self.container.add
         for i = 1, n do
            if errors[i] == nil then
               add(first + i - 1, out[i])
            else
               failed(self, first + i - 1, errors[i], false)
            end
         end
      end
      if elapsed then
         local per = elapsed / n
         self.avg = self.avg and 0.5 * (self.avg + per) or per
      end
   else
      for i = 1, n do failed(self, first + i - 1, tostring(out), dead) end
   end
   self.open = self.open - n
   self.done = self.done + n
   self.uses[key] = self.uses[key] - 1
   release(self, key)
   pace(self)
   if self.o.progress then
      require('xlua').progress(self.done, self.added)
   end
end

-- Runs once per task: what it works out per callable or per chunk is kept (lastkey, pace).
function Scheduler:add_task(data, callable)
   check_running(self, 'add_task')
   if callable == nil then
      if self.last == nil then
         raise('scheduler:add_task: no callable given, and none before to reuse')
      end
   elseif callable ~= self.last then
      if type(callable) ~= 'function' then
         raise('scheduler:add_task: the callable must be a function, got ' .. type(callable))
      end
      local previous = self.last
      self.last = callable
      self.lastkey = key_of(self, callable)
      if previous ~= nil then
         if self.nbuf > 0 then flush(self) end
         if self.keys[previous] then release(self, self.keys[previous]) end
      end
   end
   local key = self.lastkey
   while self.open >= self.limit do
      flush(self)
      collect_one(self)
   end
   local added = self.added + 1
   self.added = added
   self.open = self.open + 1
   local n = self.nbuf + 1
   if n == 1 then
      self.bufkey, self.buffirst = key, added
   end
   self.buffer[n] = data
   self.nbuf = n
   if self.inflight < self.target then
      flush(self) -- a worker has room: start at once
   elseif n >= self.chunk then
      flush(self)
      while self.inflight > self.target do
         collect_one(self)
      end
   end
end

function Scheduler:n_open_tasks()
   check_running(self, 'n_open_tasks')
   return self.open
end

-- The results of the tasks since the last call, the container emptied; raises (as `fname`) for
-- the first task that failed, naming it.
local function hand_out(self, fname, container)
   local errors = self.errors
   self.errors = {}
   self.added, self.done = 0, 0
   local results = container.result()
   if #errors > 0 then
      table.sort(errors, function(a, b) return a.index < b.index end)
      local e = errors[1]
      local more = #errors > 1 and (' (and %d more failed)'):format(#errors - 1) or ''
      raise(('scheduler:%s: task %d failed%s: %s'):format(fname, e.index, more, e.message))
   end
   return results
end

-- Waits for every open task (no polling: the wait sleeps until a worker answers) and returns
-- the results; the container starts again empty. A task that failed raises here, once all are
-- done, naming the task.
function Scheduler:get_results()
   check_running(self, 'get_results')
   flush(self, target(self))
   while self.open > 0 do
      collect_one(self)
   end
   return hand_out(self, 'get_results', self.container)
end

-- Tasks per chunk of a map, at most (a worker busy with one chunk cannot take part in another).
local MAP_CHUNK = 8192

-- Runs callable over every element of `list` and returns the results as a list in the same
-- order, as Python's Pool.map: the whole list is known at once, so it goes to the workers in
-- large chunks (a quarter of each worker's share, as Pool.map cuts it, at most MAP_CHUNK tasks),
-- a few chunks in flight per worker. A task that fails raises once all are done, naming it. The
-- scheduler's own results container is left alone; tasks from add_task must be collected first.
function Scheduler:map(callable, list)
   check_running(self, 'map')
   if type(callable) ~= 'function' then
      raise('scheduler:map: the callable must be a function, got ' .. type(callable))
   end
   if type(list) ~= 'table' then
      raise('scheduler:map: a list of task data expected as argument #2, got ' .. type(list))
   end
   if self.open > 0 then
      raise(('scheduler:map: %d tasks from add_task are still open: call get_results first'):format(self.open))
   end
   local n = #list
   local key = key_of(self, callable)
   local own = self.container
   self.container = containers.ordered(n)
   self.added = n
   local per = math.max(1, math.min(MAP_CHUNK, math.ceil(n / (4 * math.max(1, self.backend.n)))))
   local ahead = 2 * target(self)
   local first = 1
   local ok, err = pcall(function()
      while true do
         while first <= n and self.inflight < ahead do
            local count = math.min(n, first + per - 1) - first + 1
            self.open = self.open + count
            send_chunk(self, key, first, list, first, count)
            first = first + count
         end
         if self.open == 0 then break end
         collect_one(self)
      end
   end)
   local mapped = self.container
   self.container = own
   release(self, key)
   if not ok then error(err, 0) end
   return hand_out(self, 'map', mapped)
end

-- Ends the workers (open tasks are dropped); a second call does nothing.
function Scheduler:shutdown()
   if getmetatable(self) ~= Scheduler then
      raise('scheduler:shutdown: call it with a colon (s:shutdown())')
   end
   if not self.running then return end
   self.running = false
   self.backend:close()
end

function Scheduler:__tostring()
   return ('scheduler.%s (%d workers, %d open tasks%s)'):format(self.fname, self.backend.n, self.open,
      self.running and '' or ', shut down')
end

scheduler.Scheduler = Scheduler
return scheduler
