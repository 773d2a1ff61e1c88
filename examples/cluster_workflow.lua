-- The IPython-parallel workflow with th engines: start a cluster once, prepare the engines
-- (modules, data, a model), then hand them work: the same model evaluated on every engine's part
-- of the data, and a load-balanced search over learning rates.
--
--   th examples/cluster_workflow.lua [engines]
--
-- It starts its own cluster (profile 'example') and stops it at the end; with a cluster you
-- started yourself (`thcluster start -n 4`), use cluster.client() and skip the start and stop.
require 'torch'
local cluster = require 'cluster'

local engines = tonumber(arg[1]) or 2
math.randomseed(os.time())
local profile = 'example' .. os.time() .. '_' .. math.random(1e6)
-- thcluster beside this th (arg[0] is th's own path), else on PATH.
local thcluster = (arg[0]:match('^(.*/)th$') or '') .. 'thcluster'
-- os.execute gives true on success (Lua 5.2's form, as Torch's LuaJIT had it; 0 in plain 5.1).
local started = os.execute(string.format('%s start -n %d --profile %s --daemonize', thcluster, engines, profile))
if started ~= true and started ~= 0 then
   -- Whatever it managed to start goes too: a daemonized controller outlives this script.
   os.execute(string.format('%s stop --profile %s >/dev/null 2>&1', thcluster, profile))
   error('thcluster start failed')
end

local ok, err = pcall(function()
   local c = cluster.client(profile)
   c:wait_for_engines(engines, 60)
   local dv = c:direct_view()

   -- Prepare the engines: modules, then the same model and loss everywhere.
   dv:require{ 'nn' }
   torch.manualSeed(1)
   local n, d = 2000, 10
   -- (Client-side locals get names of their own: a function sent to the engines carries its
   -- upvalues along, and would see them instead of the engines' globals X and y.)
   local inputs = torch.randn(n, d)
   local w = torch.randn(d, 1)
   local targets = inputs * w + torch.randn(n, 1):mul(0.1)
   dv:push{ d = d }
   dv:execute(function()
      model = nn.Linear(d, 1)
      loss = nn.MSECriterion()
   end)

   -- Every engine gets its part of the data.
   dv:scatter('X', inputs)
   dv:scatter('y', targets)
   print('rows per engine', table.concat(dv:apply(function() return X:size(1) end), ' '))

   -- A load-balanced search: each task trains a fresh model on the engine's part with one
   -- learning rate and returns the final loss.
   local rates = { 0.001, 0.003, 0.01, 0.03, 0.1, 0.3 }
   local lbv = c:load_balanced_view()
   local losses = lbv:map(function(lr)
      local m = nn.Linear(d, 1)
      for _ = 1, 100 do
         m:zeroGradParameters()
         local out = m:forward(X)
         loss:forward(out, y)
         m:backward(X, loss:backward(out, y))
         m:updateParameters(lr)
      end
      return loss:forward(m:forward(X), y)
   end, rates)
   local best = 1
   for i, l in ipairs(losses) do
      print(string.format('lr %-6g loss %.5f', rates[i], l))
      if l < losses[best] then
         best = i
      end
   end
   print('best learning rate', rates[best])

   -- Train the shared model with it on every engine's part, then average the weights here.
   local lr = rates[best]
   local weights = dv:apply(function(lr)
      for _ = 1, 200 do
         model:zeroGradParameters()
         local out = model:forward(X)
         loss:forward(out, y)
         model:backward(X, loss:backward(out, y))
         model:updateParameters(lr)
      end
      return model.weight
   end, lr)
   local avg = weights[1]:clone():zero()
   for _, wt in ipairs(weights) do
      avg:add(1 / #weights, wt)
   end
   print(string.format('distance to the true weights %.4f', (avg:t() - w):norm()))
   c:close()
end)
os.execute(string.format('%s stop --profile %s >/dev/null', thcluster, profile))
if not ok then
   error(err, 0)
end
