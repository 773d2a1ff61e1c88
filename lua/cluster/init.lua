-- cluster: a client for a cluster of persistent th engines, in the manner of IPython parallel.
-- Start the cluster with `thcluster start -n 4`, then from a script or the REPL:
--
--   local c = require('cluster').client()
--   c:wait_for_engines(4, 30)
--   local dv = c:direct_view()            -- every engine, each its own copy
--   dv:require('nn'); dv:push{w = torch.randn(10)}
--   local lbv = c:load_balanced_view()    -- any engine, the least loaded first
--   local squares = lbv:map(function(x) return x * x end, {1, 2, 3})
--
-- Calls block and return values by default; with {block = false} (or view.block = false) they
-- return an AsyncResult (ready, wait, get, progress, elapsed, metadata, abort). An engine's error
-- is raised in the client with the engine's traceback. The native half is libcluster
-- (src/cluster); what an engine does with a task is cluster.engine.

local lib = require 'libcluster'
local torch = require 'torch'

local cluster = {}
local unpack = unpack or table.unpack

-- Raises 'cluster.<fname>: msg' at the line that called the public function (`level` more
-- levels up when a helper of that function raises it).
local function fail(fname, msg, level)
   error('cluster.' .. fname .. ': ' .. msg, 3 + (level or 0))
end

local function clock()
   local sys = package.loaded.sys or require 'sys'
   return sys.clock()
end

local function copy_opts(fname, opts, allowed)
   if opts == nil then
      return {}
   end
   if type(opts) ~= 'table' then
      fail(fname, 'expected an options table, got ' .. type(opts))
   end
   for k in pairs(opts) do
      if not allowed[k] then
         fail(fname, "unknown option '" .. tostring(k) .. "'")
      end
   end
   return opts
end

-- Argument checks, called by the public functions themselves.
local function check_function(fname, fn)
   if type(fn) ~= 'function' then
      fail(fname, 'expected a function, got ' .. type(fn), 1)
   end
end

local function check_list(fname, list)
   if type(list) ~= 'table' then
      fail(fname, 'expected a list, got ' .. type(list), 1)
   end
end

-- The sizes of k contiguous parts of n items, the first ones one larger when k does not divide n.
local function part_sizes(n, k)
   local sizes = {}
   for i = 1, k do
      sizes[i] = math.floor(n / k) + (i <= n % k and 1 or 0)
   end
   return sizes
end

-- The results of map chunks ({n = ..., ...} each), one list.
local function flatten(parts)
   local out, k = {}, 0
   for _, p in ipairs(parts) do
      for j = 1, p.n do
         k = k + 1
         out[k] = p[j]
      end
   end
   return out
end

local function check_timeout(fname, t)
   if t ~= nil and (type(t) ~= 'number' or t < 0 or t ~= t) then
      fail(fname, 'the timeout must be a number of seconds, got ' .. tostring(t))
   end
end

---------------------------------------------------------------------------------------------------
-- AsyncResult: the results of tasks already submitted.

local AsyncResult = {}
AsyncResult.__index = AsyncResult

-- ids: task ids; finish(values, metas) builds what get() returns from the values in id order
-- (or in arrival order when `unordered`).
local function async(client, fname, ids, finish, unordered)
   return setmetatable({
      _client = client,
      _fname = fname,
      _ids = ids,
      _finish = finish,
      _unordered = unordered,
      _started = clock(),
   }, AsyncResult)
end

function AsyncResult:ready()
   if self._values or self._failure then
      return true
   end
   return self._client._c:count(self._ids) == #self._ids
end

-- How many of the tasks have finished.
function AsyncResult:progress()
   if self._values or self._failure then
      return #self._ids
   end
   return self._client._c:count(self._ids)
end

-- Seconds since submission (until the results were all in, once they are).
function AsyncResult:elapsed()
   return (self._done_at or clock()) - self._started
end

local function show_progress(ar)
   if ar._progress ~= nil then
      return ar._progress
   end
   return #ar._ids > 1 and torch.isatty(io.stdout)
end

-- Waits up to `timeout` seconds (forever without one); whether every task has finished. Raises
-- when the controller is gone before they have (within 2 s of its end or its last answer).
function AsyncResult:wait(timeout)
   check_timeout('AsyncResult.wait', timeout)
   if self._values or self._failure then
      return true
   end
   local c = self._client._c
   local function wait_for(t)
      local done, gone = c:wait(self._ids, t)
      if gone then
         error('cluster.' .. self._fname .. ': ' .. gone, 0)
      end
      return done
   end
   if not show_progress(self) then
      return wait_for(timeout)
   end
   local xlua = require 'xlua'
   local deadline = timeout and clock() + timeout
   local n = #self._ids
   while true do
      local done = c:count(self._ids)
      xlua.progress(done, n)
      if done == n then
         return true
      end
      local slice = 0.1
      if deadline then
         slice = math.min(slice, deadline - clock())
         if slice <= 0 then
            return false
         end
      end
      wait_for(slice)
   end
end

-- Takes every result off the client (once); remembers the first failure.
local function collect(self)
   if self._values or self._failure then
      return
   end
   local c = self._client._c
   local values, metas, arrival = {}, {}, {}
   local failure
   for i, id in ipairs(self._ids) do
      local kind, v, engine, queued_us, ran_us, seq = c:take(id)
      metas[i] = { engine = engine, status = kind, queued = queued_us / 1e6, ran = ran_us / 1e6 }
      arrival[i] = seq
      if kind == 'ok' then
         values[i] = v
      elseif not failure then
         failure = { index = i, engine = engine, kind = kind, message = tostring(v) }
      end
   end
   self._done_at = clock()
   self.metadata = metas
   self.engine_id = {}
   for i, m in ipairs(metas) do
      self.engine_id[i] = m.engine
   end
   if failure then
      self._failure = failure
      return
   end
   if self._unordered then
      local order = {}
      for i = 1, #self._ids do
         order[i] = i
      end
      table.sort(order, function(a, b)
         return arrival[a] < arrival[b]
      end)
      local v2, m2 = {}, {}
      for k, i in ipairs(order) do
         v2[k], m2[k] = values[i], metas[i]
      end
      values, metas = v2, m2
   end
   self._values = values
   self._metas = metas
end

-- Waits (up to `timeout` seconds) and returns the results; raises the first task's error, with
-- the engine's traceback.
function AsyncResult:get(timeout)
   check_timeout('AsyncResult.get', timeout)
   if not self:wait(timeout) then
      error(string.format('cluster.%s: %d of %d tasks finished within %g s', self._fname, self:progress(), #self._ids,
         timeout), 2)
   end
   collect(self)
   local f = self._failure
   if f then
      local what = f.kind == 'lost' and 'could not finish' or 'failed'
      local where = f.engine ~= 0 and (' on engine ' .. f.engine) or ''
      error(string.format('cluster.%s: task %d %s%s: %s', self._fname, f.index, what, where, f.message), 2)
   end
   return self._finish(self._values, self._metas)
end

-- Drops the tasks: those not started are not run, and results are not kept.
function AsyncResult:abort()
   if not (self._values or self._failure) then
      self._client._c:forget(self._ids)
      self._failure = { index = 0, engine = 0, kind = 'lost', message = 'aborted' }
   end
end

AsyncResult.__tostring = function(self)
   return string.format('AsyncResult(%s: %d/%d done)', self._fname, self:progress(), #self._ids)
end

cluster.AsyncResult = AsyncResult

---------------------------------------------------------------------------------------------------
-- Client

local Client = {}
Client.__index = Client

-- cluster.client([profile] [, {timeout = s}]) or cluster.client{profile = ..., timeout = ...}
function cluster.client(profile, opts)
   if type(profile) == 'table' then
      profile, opts = profile.profile, profile
   end
   if profile ~= nil and type(profile) ~= 'string' then
      fail('client', 'expected a profile name, got ' .. type(profile))
   end
   opts = opts or {}
   local c = lib.connect(profile, opts.timeout)
   return setmetatable({ _c = c, profile = profile or 'default' }, Client)
end

-- The engines' ids, in order.
function Client:ids()
   return self._c:engines()
end

-- Waits until at least n engines have joined (up to timeout seconds, 60 by default).
function Client:wait_for_engines(n, timeout)
   if type(n) ~= 'number' or n < 0 then
      fail('wait_for_engines', 'expected a number of engines, got ' .. tostring(n))
   end
   check_timeout('wait_for_engines', timeout)
   timeout = timeout or 60
   local deadline = clock() + timeout
   while true do
      local ids = self._c:engines()
      if #ids >= n then
         return ids
      end
      if clock() >= deadline then
         fail('wait_for_engines', string.format('%d of %d engines joined within %g s', #ids, n, timeout))
      end
      self._c:pause(0.05)
   end
end

-- The cluster's state: a list of engines {id, host, pid, state, tasks, queued, rss_kb}, plus
-- .controller {pid, host, rss_kb}, .queued, .tasks_done, .restarts.
function Client:status()
   return self._c:status()
end

-- Stops the whole cluster (engines and controller), as `thcluster stop` does.
function Client:shutdown()
   self._c:stop()
   self._c:close()
end
Client.stop = Client.shutdown

function Client:close()
   self._c:close()
end

function Client:direct_view(ids)
   return cluster.DirectView(self, ids)
end

function Client:load_balanced_view()
   return cluster.LoadBalancedView(self)
end

Client.__tostring = function(self)
   return "cluster.client('" .. self.profile .. "')"
end

cluster.Client = Client

---------------------------------------------------------------------------------------------------
-- Views

local function resolve_block(view, opts)
   if opts.block ~= nil then
      return opts.block
   end
   return view.block
end

-- Sends one task to each of the view's engines; finish(values in engine order) gives get()'s value.
local function direct_submit(view, fname, task, opts, finish)
   local targets = view._targets or view._client._c:engines()
   if #targets == 0 then
      fail(fname, 'the cluster has no engines')
   end
   local first = view._client._c:submit(task, targets, 0, opts.timeout, fname)
   local ids = {}
   for i = 1, #targets do
      ids[i] = first + i - 1
   end
   local ar = async(view._client, 'DirectView.' .. fname, ids, finish)
   ar._progress = opts.progress
   if resolve_block(view, opts) then
      return ar:get()
   end
   return ar
end

local DirectView = {}
local direct_methods = {}

function cluster.DirectView(client, ids)
   if ids ~= nil then
      if type(ids) == 'number' then
         ids = { ids }
      elseif type(ids) ~= 'table' then
         fail('direct_view', 'expected a list of engine ids, got ' .. type(ids))
      end
      local known = {}
      for _, id in ipairs(client._c:engines()) do
         known[id] = true
      end
      for _, id in ipairs(ids) do
         if not known[id] then
            fail('direct_view', 'there is no engine ' .. tostring(id))
         end
      end
   end
   return setmetatable({ _client = client, _targets = ids, block = true }, DirectView)
end

local function first_values(values)
   local out = {}
   for i, v in ipairs(values) do
      out[i] = v[1]
   end
   return out
end

local function nothing()
   return nil
end

local DIRECT_OPTS = { block = true, timeout = true, progress = true }

-- Runs code (a string, with the engine's globals, or a function) on every engine.
function direct_methods:execute(code, opts)
   opts = copy_opts('execute', opts, DIRECT_OPTS)
   if type(code) ~= 'string' and type(code) ~= 'function' then
      fail('execute', 'expected code (a string or a function), got ' .. type(code))
   end
   return direct_submit(self, 'execute', { op = 'execute', code = code }, opts, nothing)
end

-- The task that calls fn(...) on an engine.
local function call_task(fn, ...)
   return { op = 'call', fn = fn, args = { n = select('#', ...), ... } }
end

local function direct_apply(view, opts, fn, ...)
   return direct_submit(view, 'apply', call_task(fn, ...), opts, first_values)
end

-- fn(...) on every engine: the list of what each returned (its first value).
function direct_methods:apply(fn, ...)
   check_function('apply', fn)
   return direct_apply(self, {}, fn, ...)
end

-- Like apply, with options first: apply_with({block = false}, fn, ...).
function direct_methods:apply_with(opts, fn, ...)
   opts = copy_opts('apply_with', opts, DIRECT_OPTS)
   check_function('apply_with', fn)
   return direct_apply(self, opts, fn, ...)
end

-- Sets globals on every engine: push{name = value, ...}.
function direct_methods:push(values, opts)
   opts = copy_opts('push', opts, DIRECT_OPTS)
   if type(values) ~= 'table' then
      fail('push', 'expected a table of name = value, got ' .. type(values))
   end
   for k in pairs(values) do
      if type(k) ~= 'string' then
         fail('push', 'global names must be strings, got ' .. type(k))
      end
   end
   return direct_submit(self, 'push', { op = 'push', values = values }, opts, nothing)
end

-- The global `name` (or each of a list of names) from every engine, in engine order.
function direct_methods:pull(names, opts)
   opts = copy_opts('pull', opts, DIRECT_OPTS)
   if type(names) ~= 'string' and type(names) ~= 'table' then
      fail('pull', 'expected a global name or a list of them, got ' .. type(names))
   end
   return direct_submit(self, 'pull', { op = 'pull', names = names }, opts, function(values)
      return values
   end)
end

-- require(name) on every engine, as the global `name` (IPython's sync_imports).
function direct_methods:require(names, opts)
   opts = copy_opts('require', opts, DIRECT_OPTS)
   if type(names) == 'string' then
      names = { names }
   end
   if type(names) ~= 'table' then
      fail('require', 'expected a module name or a list of them, got ' .. type(names))
   end
   return direct_submit(self, 'require', { op = 'require', names = names }, opts, nothing)
end

-- Splits `value` (a tensor, along its first dimension, or a list) into one contiguous part per
-- engine, and sets the global `name` to its part on each.
function direct_methods:scatter(name, value, opts)
   opts = copy_opts('scatter', opts, DIRECT_OPTS)
   if type(name) ~= 'string' then
      fail('scatter', 'expected a global name, got ' .. type(name))
   end
   local targets = self._targets or self._client._c:engines()
   local k = #targets
   if k == 0 then
      fail('scatter', 'the cluster has no engines')
   end
   local n, part
   if torch.isTensor(value) then
      n = value:dim() > 0 and value:size(1) or 0
      part = function(lo, hi)
         if hi < lo then
            return value.new()
         end
         return value:narrow(1, lo, hi - lo + 1):clone()
      end
   elseif type(value) == 'table' then
      n = #value
      part = function(lo, hi)
         local t = {}
         for i = lo, hi do
            t[#t + 1] = value[i]
         end
         return t
      end
   else
      fail('scatter', 'expected a tensor or a list, got ' .. type(value))
   end
   local ars, lo, sizes = {}, 1, part_sizes(n, k)
   for i, id in ipairs(targets) do
      local size = sizes[i]
      local one = cluster.DirectView(self._client, { id })
      ars[i] = one:push({ [name] = part(lo, lo + size - 1) }, { block = false })
      lo = lo + size
   end
   local block = resolve_block(self, opts)
   local ids = {}
   for _, ar in ipairs(ars) do
      ids[#ids + 1] = ar._ids[1]
   end
   local ar = async(self._client, 'DirectView.scatter', ids, nothing)
   if block then
      return ar:get()
   end
   return ar
end

-- The global `name` from every engine, joined: tensors concatenated along the first dimension,
-- lists one after the other.
function direct_methods:gather(name, opts)
   opts = copy_opts('gather', opts, DIRECT_OPTS)
   if type(name) ~= 'string' then
      fail('gather', 'expected a global name, got ' .. type(name))
   end
   return direct_submit(self, 'gather', { op = 'pull', names = name }, opts, function(parts)
      if torch.isTensor(parts[1]) then
         local nonempty = {}
         for _, p in ipairs(parts) do
            if p:nElement() > 0 then
               nonempty[#nonempty + 1] = p
            end
         end
         if #nonempty == 0 then
            return parts[1]
         end
         return torch.cat(nonempty, 1)
      end
      local out = {}
      for _, p in ipairs(parts) do
         for _, v in ipairs(p) do
            out[#out + 1] = v
         end
      end
      return out
   end)
end

-- fn over a list, the list split into one contiguous part per engine (IPython's DirectView.map).
function direct_methods:map(fn, list, opts)
   opts = copy_opts('map', opts, DIRECT_OPTS)
   check_function('map', fn)
   check_list('map', list)
   local targets = self._targets or self._client._c:engines()
   local k, n = #targets, #list
   if k == 0 then
      fail('map', 'the cluster has no engines')
   end
   local ids, lo, sizes = {}, 1, part_sizes(n, k)
   for i, id in ipairs(targets) do
      local size = sizes[i]
      local items = {}
      for j = lo, lo + size - 1 do
         items[#items + 1] = list[j]
      end
      lo = lo + size
      ids[i] = self._client._c:submit({ op = 'map', fn = fn, items = items, n = size }, { id }, 0, opts.timeout, 'map')
   end
   local ar = async(self._client, 'DirectView.map', ids, flatten)
   ar._progress = opts.progress
   if resolve_block(self, opts) then
      return ar:get()
   end
   return ar
end

function direct_methods:targets()
   return self._targets or self._client._c:engines()
end

DirectView.__index = function(self, k)
   local m = direct_methods[k]
   if m ~= nil then
      return m
   end
   -- dv.name: the global from every engine.
   if type(k) == 'string' and k:sub(1, 1) ~= '_' then
      return self:pull(k)
   end
end

-- dv.name = value: the global on every engine.
DirectView.__newindex = function(self, k, v)
   if k == 'block' or type(k) ~= 'string' or k:sub(1, 1) == '_' then
      rawset(self, k, v)
   else
      self:push({ [k] = v })
   end
end

DirectView.__tostring = function(self)
   local t = self._targets and table.concat(self._targets, ',') or 'all'
   return 'DirectView(' .. t .. ')'
end

---------------------------------------------------------------------------------------------------
-- LoadBalancedView

local LoadBalancedView = {}
LoadBalancedView.__index = LoadBalancedView

function cluster.LoadBalancedView(client)
   return setmetatable({ _client = client, block = true, retries = 0, timeout = nil }, LoadBalancedView)
end

local LB_OPTS = { block = true, timeout = true, retries = true, ordered = true, chunksize = true, progress = true }

local function lb_submit(view, fname, tasks, opts, finish, unordered)
   local c = view._client._c
   local retries = opts.retries or view.retries or 0
   local timeout = opts.timeout or view.timeout
   check_timeout(fname, timeout)
   if type(retries) ~= 'number' or retries < 0 then
      fail(fname, 'retries must be a number of times, got ' .. tostring(retries))
   end
   local ids = {}
   for i, task in ipairs(tasks) do
      ids[i] = c:submit(task, nil, retries, timeout, fname)
   end
   local ar = async(view._client, 'LoadBalancedView.' .. fname, ids, finish, unordered)
   ar._progress = opts.progress
   if resolve_block(view, opts) then
      return ar:get()
   end
   return ar
end

local function every_value(values)
   return unpack(values[1], 1, values[1].n)
end

local function lb_apply(view, opts, fn, ...)
   return lb_submit(view, 'apply', { call_task(fn, ...) }, opts, every_value)
end

-- fn(...) on whichever engine is free first: what it returns (blocking), or an AsyncResult.
function LoadBalancedView:apply(fn, ...)
   check_function('apply', fn)
   return lb_apply(self, {}, fn, ...)
end

-- Like apply, with options first: apply_with({block = false, retries = 1}, fn, ...).
function LoadBalancedView:apply_with(opts, fn, ...)
   opts = copy_opts('apply_with', opts, LB_OPTS)
   check_function('apply_with', fn)
   return lb_apply(self, opts, fn, ...)
end

-- The list of fn(item) for each item of `list`, in order (or as they finish, ordered = false);
-- chunksize items go to an engine at a time.
function LoadBalancedView:map(fn, list, opts)
   opts = copy_opts('map', opts, LB_OPTS)
   check_function('map', fn)
   check_list('map', list)
   local chunksize = opts.chunksize or 1
   if type(chunksize) ~= 'number' or chunksize < 1 or chunksize % 1 ~= 0 then
      fail('map', 'chunksize must be a positive integer, got ' .. tostring(chunksize))
   end
   local n = #list
   local tasks = {}
   for lo = 1, n, chunksize do
      local hi = math.min(n, lo + chunksize - 1)
      local items = {}
      for j = lo, hi do
         items[j - lo + 1] = list[j]
      end
      tasks[#tasks + 1] = { op = 'map', fn = fn, items = items, n = hi - lo + 1 }
   end
   return lb_submit(self, 'map', tasks, opts, flatten, opts.ordered == false)
end

-- Sets the view's defaults: set_flags{block =, retries =, timeout =}.
function LoadBalancedView:set_flags(flags)
   for k, v in pairs(copy_opts('set_flags', flags, { block = true, retries = true, timeout = true })) do
      self[k] = v
   end
   return self
end

LoadBalancedView.__tostring = function()
   return 'LoadBalancedView'
end

---------------------------------------------------------------------------------------------------
-- The engine's entry points (thcluster starts engines with `th -e "require([[cluster]])._engine()"`).

-- A task that ends its engine with os.exit first lets the results already sent leave.
local function flush_on_exit()
   local exit = os.exit
   os.exit = function(...)
      lib.flush()
      return exit(...)
   end
end

function cluster._engine()
   flush_on_exit()
   lib.serve(require('cluster.engine').handler)
end

function cluster._engine_file(path, profile)
   flush_on_exit()
   lib.serve_file(path, profile, require('cluster.engine').handler)
end

-- Where a profile's connection file is.
cluster.connection_file = lib.connection_file

return cluster
