-- The task callables of ParallelFlow: Lua functions for the scheduler, sent to each worker once
-- (the scheduler caches them), then run once per data chunk.
--
-- A worker state is fresh: it has torch, but neither this package's classes nor the caller's
-- package searchers. So a callable carries only plain values: the flow node serialized as a
-- string, and a setup table (where mdp was loaded from when it came from disk, modules to
-- require, the active extensions). On its first task in a worker it adds a searcher for that
-- directory if needed, requires mdp and the modules, activates the extensions and loads the
-- flow node, which it keeps for the next tasks. Each task then works on a fork of it, as MDP's
-- FlowTrainCallable.fork() per task.
local mdp = require 'mdp'
local parallel = require 'mdp.parallel'

local callables = {}
parallel.callables = callables

-- What a callable needs in the workers. opts (ParallelFlow's train_callable_class argument) may
-- give requires = {module names}, setup = function() (run once per worker), preprocess =
-- function(data) -> data (run on each chunk in the worker before training or executing).
function callables.setup(opts, purge)
   opts = opts or {}
   local requires = {}
   for _, m in ipairs(parallel.worker_requires) do requires[#requires + 1] = m end
   for _, m in ipairs(opts.requires or {}) do requires[#requires + 1] = m end
   return {
      root = mdp._source_root,
      requires = requires,
      extensions = mdp.get_active_extensions(),
      setup = opts.setup,
      preprocess = opts.preprocess,
      purge = purge ~= false,
   }
end

-- kind: 'train' (returns the trained fork, purged) or 'execute' (returns y, or {y, fork} for
-- flows whose nodes need an execute fork). The function's only upvalues are its arguments and
-- `state`: everything else it reaches through require.
function callables.task(kind, blob, setup, nodenr)
   local state = {}
   return function(data)
      local flownode = state.flownode
      if flownode == nil then
         local root = setup.root
         if root and package.loaded['mdp'] == nil and rawget(_G, '__mdp_searcher_root') ~= root then
            rawset(_G, '__mdp_searcher_root', root)
            table.insert(package.loaders, 2, function(name)
               if name ~= 'mdp' and name:sub(1, 4) ~= 'mdp.' then return nil end
               local rel = name:gsub('%.', '/')
               for _, p in ipairs { root .. '/' .. rel .. '.lua', root .. '/' .. rel .. '/init.lua' } do
                  local f = io.open(p)
                  if f then
                     f:close()
                     return assert(loadfile(p))
                  end
               end
               return '\n\tno file ' .. rel .. '.lua under ' .. root
            end)
         end
         local m = require 'mdp'
         for _, r in ipairs(setup.requires) do require(r) end
         if setup.setup then setup.setup() end
         for _, e in ipairs(setup.extensions) do m.activate_extension(e) end
         flownode = torch.deserialize(blob)
         state.flownode = flownode
         state.mdp = m
      end
      local m = state.mdp
      if setup.preprocess then data = setup.preprocess(data) end
      local function purge(fn)
         local flow = fn._flow
         local dummy
         for i = 1, #flow do
            local node = flow[i]
            if not (node._train_phase_started or node:use_execute_fork()) then
               dummy = dummy or m.parallel._DummyNode()
               rawset(flow, i, dummy)
            end
         end
      end
      if kind == 'train' then
         local fork = flownode:fork()
         if torch.isTensor(data) then
            fork:train(data)
         else
            fork:train(unpack(data, 1, table.maxn(data)))
         end
         if setup.purge then purge(fork) end
         return fork
      end
      local fn = flownode
      local use_fork = fn:use_execute_fork()
      if use_fork then fn = fn:fork() end
      local x = torch.isTensor(data) and data or data[1]
      local y
      if nodenr then y = fn._flow:execute(x, nodenr) else y = fn:execute(x) end
      if use_fork then
         if setup.purge then purge(fn) end
         return { y, fn }
      end
      return y
   end
end

return callables
