-- mdp.parallel.ParallelFlow{node1, node2, ...} (or ParallelFlow(flow_or_list [, verbose])): a
-- Flow whose train and execute take a scheduler (any of require 'scheduler', or
-- mdp.parallel.Scheduler()):
--
--    local s = scheduler.processes(2)
--    flow:train({chunks, chunks}, s)       -- one task per chunk; forks joined on this side
--    local y = flow:execute(chunks, nil, s)
--    s:shutdown()                          -- or scheduler.with(s, function(s) ... end)
--
-- Training goes phase by phase: if the flow node's fork() works for the phase, every chunk is a
-- task training a fork of it, the forks are joined in the order they come back and the phase is
-- closed here (every eigen decomposition runs here); else (a node without _fork) the phase is
-- trained here, chunk by chunk. A list of schedulers (one per node) may replace the scheduler:
-- each is shut down after its node. Without a scheduler, train and execute are Flow's.
local mdp = require 'mdp'
local utils = mdp.utils
local raise = require('mdp.errors').raise
local parallel = require 'mdp.parallel'
local callables = parallel.callables

local Flow = mdp.Flow
local ParallelFlow = torch.class('mdp.parallel.ParallelFlow', 'mdp.Flow', parallel)

function ParallelFlow:__init(flow, verbose, ...)
   Flow.__init(self, flow, false, verbose)
   self.crash_recovery = false
   self.is_parallel_training = false
end

function ParallelFlow:_new_like(list)
   local f = getmetatable(self).new(list, self.verbose)
   return f
end

local function check_open(s, fname)
   if type(s.n_open_tasks) == 'function' then
      local ok, n = pcall(s.n_open_tasks, s)
      if ok and n and n > 0 then
         raise('ParallelFlowException', fname,
            'the scheduler has %d open tasks: collect them (get_results) before using it for a flow', n)
      end
   end
end

local function empty_error(self, i, node)
   if node:get_current_train_phase() >= 1 then
      raise('FlowException', 'ParallelFlow.train',
         'The training data iteration for node no. %d could not be repeated for the second training phase, '
         .. 'you probably provided an iterator instead of an iterable.', i)
   end
   raise('FlowException', 'ParallelFlow.train', 'The training data iterator for node no. %d is empty.', i)
end

-- Trains the current phase of node i here, on every chunk (a node that cannot fork).
function ParallelFlow:_local_train_phase(iterable, i, used, opts)
   local fn = self._flownode
   local next_chunk = Flow._chunks_of(iterable, used)
   local empty = true
   for chunk in next_chunk do
      empty = false
      if opts and opts.preprocess then chunk = opts.preprocess(chunk) end
      if torch.isTensor(chunk) then
         fn:train(chunk)
      else
         fn:train(unpack(chunk, 1, table.maxn(chunk)))
      end
   end
   if empty then empty_error(self, i, self[i]) end
end

-- One phase of node i as tasks on scheduler s; returns the joined forks.
function ParallelFlow:_parallel_phase(s, iterable, i, used, opts)
   check_open(s, 'ParallelFlow.train')
   local blob = torch.serialize(self._flownode)
   local callable = callables.task('train', blob, callables.setup(opts, true))
   local restore = parallel._install_container(s, parallel._train_container())
   local ok, results = pcall(function()
      local n = 0
      for chunk in Flow._chunks_of(iterable, used) do
         n = n + 1
         s:add_task(chunk, n == 1 and callable or nil)
      end
      if n == 0 then empty_error(self, i, self[i]) end
      return s:get_results()
   end)
   if restore then restore() end
   if not ok then error(results, 0) end
   if results == nil or #results == 0 then
      raise('ParallelFlowException', 'ParallelFlow.train',
         'Could not get any training tasks or results for the current training phase.')
   end
   return results
end

function ParallelFlow:_parallel_train(data_iterables, scheduler, opts)
   local iterables = self:_train_check_iterables(data_iterables)
   local schedulers
   if not parallel.is_scheduler(scheduler) then
      if type(scheduler) ~= 'table' then
         raise('ParallelFlowException', 'ParallelFlow.train', 'a scheduler or a list of schedulers expected, got %s',
            type(scheduler))
      end
      schedulers = scheduler
   end
   local n = rawlen(self)
   self._flownode = mdp.hinet.FlowNode(Flow(self:nodes()))
   self.is_parallel_training = true
   local used = {}
   local shut = {}
   local function shutdown_upto(k)
      if not schedulers then return end
      for j = 1, k do
         local sj = schedulers[j]
         if sj and not shut[j] then
            shut[j] = true
            pcall(sj.shutdown, sj)
         end
      end
   end
   local ok, err = pcall(function()
      local i = 1
      while i <= n do
         local node = self[i]
         if not node:is_training() then
            i = i + 1
         else
            shutdown_upto(i - 1)
            local iterable = iterables[i]
            if not iterable then
               raise('TypeError', 'ParallelFlow.train', 'node #%d (%s) is training but its data iterable is None (false)',
                  i, node:_name())
            end
            used[i] = used[i] or {}
            local forkable, ferr = pcall(self._flownode.fork, self._flownode)
            if not forkable and not mdp.is_exception(ferr, 'NotForkableParallelException') then
               error(ferr, 0)
            end
            if forkable then
               if self.verbose then print(('start parallel training phase of node no. %d in parallel flow'):format(i)) end
               local s = schedulers and schedulers[i] or scheduler
               if not parallel.is_scheduler(s) then
                  raise('ParallelFlowException', 'ParallelFlow.train', 'no scheduler for node #%d', i)
               end
               local results = self:_parallel_phase(s, iterable, i, used[i], opts)
               for _, r in ipairs(results) do self._flownode:join(r) end
            else
               if self.verbose then
                  print(('could not fork node no. %d: %s'):format(i, tostring(ferr)))
                  print(('start nonparallel training phase of node no. %d in parallel flow'):format(i))
               end
               self:_local_train_phase(iterable, i, used[i], opts)
            end
            self:_stop_training_hook()
            self._flownode:stop_training()
            self:_post_stop_training_hook(i)
         end
      end
   end)
   self.is_parallel_training = false
   self._flownode = nil
   shutdown_upto(schedulers and math.max(n, rawlen(schedulers)) or 0)
   if not ok then error(err, 0) end
end

function ParallelFlow:_post_stop_training_hook(i) end

-- train(data_iterables [, scheduler [, train_callable_class [, overwrite_result_container]]]).
-- train_callable_class: nil, or a table {requires = {...}, setup = f, preprocess = f} (see
-- mdp.parallel.callables).
function ParallelFlow:train(data_iterables, scheduler, train_callable_class, overwrite_result_container)
   if self.is_parallel_training then
      raise('ParallelFlowException', 'ParallelFlow.train', 'Parallel training is underway.')
   end
   if scheduler == nil then
      if train_callable_class ~= nil then
         raise('ParallelFlowException', 'ParallelFlow.train',
            'A train_callable_class was specified but no scheduler was given, so the train_callable_class has no effect.')
      end
      return Flow.train(self, data_iterables)
   end
   return mdp.with_extension('parallel', self._parallel_train, self, data_iterables, scheduler, train_callable_class)
end

-- Closes the nodes whose last phase is still open (Flow leaves them so), so that the workers do
-- not each close them on their copy.
function ParallelFlow:_close_open_nodes(upto)
   for i = 1, upto or rawlen(self) do
      local node = self[i]
      if node:is_training() and node._train_phase_started and node:get_remaining_train_phase() == 1 then
         node:stop_training()
      end
   end
end

function ParallelFlow:_parallel_execute(iterable, nodenr, scheduler, opts)
   check_open(scheduler, 'ParallelFlow.execute')
   self:_close_open_nodes(nodenr)
   local flownode = mdp.hinet.FlowNode(Flow(self:nodes()))
   local callable = callables.task('execute', torch.serialize(flownode), callables.setup(opts, true), nodenr)
   local restore = parallel._install_container(scheduler, parallel._ordered_container())
   local ok, results = pcall(function()
      local n = 0
      if torch.isTensor(iterable) then
         n = 1
         scheduler:add_task(iterable, callable)
      else
         local next_chunk = Flow._chunks_of(iterable)
         if next_chunk == nil then
            raise('FlowException', 'ParallelFlow.execute', 'a tensor or an iterable of tensors expected')
         end
         for x in next_chunk do
            n = n + 1
            scheduler:add_task(x, n == 1 and callable or nil)
         end
      end
      if n == 0 then raise('FlowException', 'ParallelFlow.execute', 'The execute data iterator is empty.') end
      return scheduler:get_results()
   end)
   if restore then restore() end
   if not ok then error(results, 0) end
   local ys = {}
   for k = 1, table.maxn(results) do
      local r = results[k]
      if torch.isTensor(r) then
         ys[#ys + 1] = r
      elseif type(r) == 'table' then
         ys[#ys + 1] = r[1]
         if r[2] then flownode:join(r[2]) end
      end
   end
   return utils.cat_rows(ys)
end

-- execute(iterable [, nodenr [, scheduler [, execute_callable_class]]]): with a scheduler, each
-- chunk is a task; the results are concatenated in the order of the chunks. (MDP 3.6 ignores
-- nodenr with a scheduler; here it is honoured.)
function ParallelFlow:execute(iterable, nodenr, scheduler, execute_callable_class, overwrite_result_container)
   if scheduler == nil then
      if execute_callable_class ~= nil then
         raise('ParallelFlowException', 'ParallelFlow.execute',
            'A execute_callable_class was specified but no scheduler was given, so the execute_callable_class has no effect.')
      end
      return Flow.execute(self, iterable, nodenr)
   end
   if not parallel.is_scheduler(scheduler) then
      raise('ParallelFlowException', 'ParallelFlow.execute', 'a scheduler expected, got %s', type(scheduler))
   end
   return mdp.with_extension('parallel', self._parallel_execute, self, iterable, nodenr, scheduler,
      execute_callable_class)
end

---------------------------------------------------------------------------------------------------
-- ParallelCheckpointFlow: train(data_iterables, scheduler, checkpoints): a checkpoint runs after
-- its node's last phase.

local PCF = torch.class('mdp.parallel.ParallelCheckpointFlow', 'mdp.parallel.ParallelFlow', parallel)

function PCF:train(data_iterables, scheduler, checkpoints, train_callable_class)
   if scheduler == nil then
      return mdp.CheckpointFlow.train(self, data_iterables, checkpoints)
   end
   self._checkpoints = mdp.CheckpointFlow._train_check_checkpoints(self, checkpoints)
   local ok, err = pcall(ParallelFlow.train, self, data_iterables, scheduler, train_callable_class)
   self._checkpoints = nil
   if not ok then error(err, 0) end
end

function PCF:_post_stop_training_hook(i)
   local node = self[i]
   if not node:is_training() and self._checkpoints and self._checkpoints[i] then
      local dic = self._checkpoints[i](node)
      if utils.is_plain_table(dic) then
         for k, v in pairs(dic) do self[k] = v end
      end
   end
end

return ParallelFlow
