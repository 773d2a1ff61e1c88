-- cluster.engine: what an engine does with each task a client sends it. A task is a table
-- {op = ..., ...}; the handler returns true and the op's value, or false and the error with the
-- engine's traceback. Engines keep their globals between tasks: that is the point of them.

local engine = {}

local unpack = unpack or table.unpack

local function pack(...)
   return { n = select('#', ...), ... }
end

local ops = {}

-- fn(args...): every value it returns.
function ops.call(task)
   local args = task.args or { n = 0 }
   return pack(task.fn(unpack(args, 1, args.n or #args)))
end

-- fn(item) for each item of a chunk of a map.
function ops.map(task)
   local out, items, fn = { n = task.n or #task.items }, task.items, task.fn
   for i = 1, out.n do
      out[i] = fn(items[i])
   end
   return out
end

-- A chunk of code (a string, run with the engine's globals) or a function.
function ops.execute(task)
   local code = task.code
   if type(code) == 'string' then
      local f, err = loadstring(code, '=[cluster execute]')
      if not f then
         error(err, 0)
      end
      code = f
   end
   code()
   return nil
end

function ops.push(task)
   for k, v in pairs(task.values) do
      _G[k] = v
   end
   return nil
end

function ops.pull(task)
   if type(task.names) == 'table' then
      local out = { n = #task.names }
      for i, name in ipairs(task.names) do
         out[i] = _G[name]
      end
      return out
   end
   return _G[task.names]
end

-- require(name) as the global `name` (the last part of a dotted name), as a script's
-- `local nn = require 'nn'` would have it.
function ops.require(task)
   for _, name in ipairs(task.names) do
      local m = require(name)
      _G[name:match('([^%.]+)$')] = m
   end
   return nil
end

local function traceback(e)
   return debug.traceback(tostring(e), 2)
end

local function handle(task)
   if type(task) ~= 'table' or not ops[task.op] then
      error('not a cluster task', 0)
   end
   return ops[task.op](task)
end

function engine.handler(task)
   return xpcall(handle, traceback, task)
end

return engine
