-- mdp.parallel: MDP's parallel extension. While the extension 'parallel' is active
-- (mdp.activate_extension('parallel'), mdp.with_extension('parallel', f), or inside
-- ParallelFlow's train and execute), every node has fork() and join(forked) (from the node's
-- _fork and _join, which a user node may define on its class), use_execute_fork() and
-- _default_fork(). ParallelFlow trains and executes a flow with any scheduler of
-- require 'scheduler' (threads, processes, ...), one task per data chunk.
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise

local parallel = {}
package.loaded['mdp.parallel'] = parallel

---------------------------------------------------------------------------------------------------
-- ParallelExtensionNode: the methods every node gets while the extension is active.

local Ext = {}
parallel.ParallelExtensionNode = Ext

-- A fork of the node, for training or executing on a part of the data; the master joins it back.
function Ext:fork()
   return self:_fork()
end

-- Joins a fork back: unset dimensions and dtype are taken from it, and a fork that started
-- training marks this node's phase as started (so that stop_training accepts it); then _join.
function Ext:join(forked)
   if self.dtype == nil and forked.dtype ~= nil then self:set_dtype(forked.dtype) end
   if self.input_dim == nil and forked.input_dim ~= nil then self:set_input_dim(forked.input_dim) end
   if self.output_dim == nil and forked.output_dim ~= nil then self:set_output_dim(forked.output_dim) end
   if forked._train_phase_started and not self._train_phase_started then
      self._train_phase_started = true
   end
   self:_join(forked)
end

function Ext:_fork()
   raise('NotForkableParallelException', self:_name() .. '.fork',
      'fork is not implemented by this node (%s)', self:_name())
end

function Ext:_join(forked)
   raise('JoinParallelException', self:_name() .. '.join',
      'join is not implemented by this node (%s)', self:_name())
end

function Ext:use_execute_fork()
   return false
end

-- A fresh node of the same class, built from the constructor arguments (_init_args) found as
-- attributes `name` or `_name`.
function Ext:_default_fork()
   local kw = {}
   for _, k in ipairs(self._init_args or {}) do
      local v = rawget(self, k)
      if v == nil then v = rawget(self, '_' .. k) end
      if v ~= nil then kw[k] = v end
   end
   for _, k in ipairs(self._init_args_required or {}) do
      if kw[k] == nil then
         raise('NotForkableParallelException', self:_name() .. '.fork',
            'could not find attributes for init arguments %s', k)
      end
   end
   return getmetatable(self).new(kw)
end

function Ext._join_covariance(c, fc)
   utils.join_covariance(c, fc)
end

mdp.register_extension_methods('parallel', mdp.Node, Ext)

-- Registers parallel methods (_fork, _join, use_execute_fork, ...) for a node class, active
-- with the extension (MDP's `class ParallelMyNode(ParallelExtensionNode, MyNode)`). Methods a
-- class defines itself work as well, active or not.
function parallel.extend(cls, methods)
   if type(cls) == 'string' then cls = torch.getmetatable(cls) end
   mdp.register_extension_methods('parallel', cls, methods)
end

---------------------------------------------------------------------------------------------------
-- The dummy that replaces the nodes a task does not need to send back.

local DummyNode = torch.class('mdp.parallel._DummyNode', 'mdp.Node', parallel)

function DummyNode:is_trainable() return false end

function DummyNode:_execute(x)
   raise('NodeException', '_DummyNode.execute', "This is only a dummy created by 'parallel._purge_flownode'.")
end

---------------------------------------------------------------------------------------------------
-- Schedulers

function parallel.is_scheduler(s)
   return type(s) == 'table' and type(s.add_task) == 'function' and type(s.get_results) == 'function'
end

-- MDP's scheduler names over require 'scheduler'.
function parallel.ProcessScheduler(opts)
   opts = opts or {}
   if type(opts) == 'number' then opts = { n_processes = opts } end
   return require('scheduler').processes(opts.n_processes, opts.options)
end

function parallel.ThreadScheduler(opts)
   opts = opts or {}
   if type(opts) == 'number' then opts = { n_threads = opts } end
   return require('scheduler').threads(opts.n_threads, opts.options)
end

-- MDP's base Scheduler: runs each task at once, in this process.
local Serial = {}
Serial.__index = Serial

function parallel.Scheduler()
   local s = setmetatable({ last = nil, n = 0, running = true }, Serial)
   s.container = parallel._ordered_container()
   return s
end

function Serial:add_task(data, callable)
   if not self.running then error('Scheduler.add_task: the scheduler is shut down', 2) end
   if callable == nil then callable = self.last end
   if callable == nil then error('Scheduler.add_task: no callable given, and none before to reuse', 2) end
   self.last = callable
   self.n = self.n + 1
   self.container.add(self.n, callable(data))
end

function Serial:get_results()
   self.n = 0
   return self.container.result()
end

function Serial:n_open_tasks() return 0 end
function Serial:shutdown() self.running = false end

-- Runs f(s) and shuts s down afterwards, also when f raises (MDP's `with scheduler:` or
-- try/finally); returns what f returns.
function parallel.with_scheduler(s, f)
   local sched = package.loaded['scheduler']
   if sched and getmetatable(s) == sched.Scheduler then return sched.with(s, f) end
   local res = { pcall(f, s) }
   local sok, serr = pcall(s.shutdown, s)
   if not res[1] then error(res[2], 0) end
   if not sok then error(serr, 0) end
   return unpack(res, 2, table.maxn(res))
end

---------------------------------------------------------------------------------------------------
-- Result containers, in the scheduler's form: add(index, v), add_all(first, values, n), result().

function parallel._ordered_container()
   local c = { list = {}, n = 0 }
   function c.add(i, v)
      c.list[i] = v
      if i > c.n then c.n = i end
   end
   function c.add_all(first, values, n)
      for i = 1, n do c.add(first + i - 1, values[i]) end
   end
   function c.result()
      local r = c.list
      c.list, c.n = {}, 0
      return r
   end
   return c
end

-- MDP's TrainResultContainer: the first result is kept and each later one joined into it as it
-- arrives (so the forks never pile up); result() is the list of that one.
function parallel._train_container()
   local c = { joined = nil }
   function c.add(_, v)
      if c.joined == nil then c.joined = v else c.joined:join(v) end
   end
   function c.add_all(first, values, n)
      for i = 1, n do c.add(first + i - 1, values[i]) end
   end
   function c.result()
      local r = c.joined
      c.joined = nil
      return r and { r } or {}
   end
   return c
end

-- Puts `c` in place of a scheduler's result container; returns a function putting the old one
-- back, or nil when the scheduler has none of that form (its own results are used then).
function parallel._install_container(s, c)
   local old = rawget(s, 'container')
   if type(old) ~= 'table' or type(old.add) ~= 'function' or type(old.add_all) ~= 'function'
         or type(old.result) ~= 'function' then
      return nil
   end
   s.container = c
   return function() s.container = old end
end

-- Modules the workers require before they load a task's nodes (user node classes).
parallel.worker_requires = {}

require 'mdp.parallel.nodes'
require 'mdp.parallel.callables'
require 'mdp.parallel.flow'

return parallel
