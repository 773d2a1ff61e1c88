-- Argument checks shared by the optimisers. A wrong call fails at once with a message naming the
-- function ("optim.sgd: ..."), rather than later inside a tensor operation with a message about
-- something the caller never wrote.
local checks = {}

local function callable(f)
   if type(f) == 'function' then return true end
   local mt = getmetatable(f)
   return type(mt) == 'table' and mt.__call ~= nil
end

-- error() at the level of whoever called the optimiser: 1 is fail, 2 the check, 3 the optimiser.
local function fail(fname, msg)
   error(fname .. ': ' .. msg, 4)
end

-- The (opfunc, x, config, state) arguments every optimiser takes.
function checks.args(fname, opfunc, x, config, state)
   if not callable(opfunc) then
      fail(fname, 'bad argument #1 (a function opfunc(x) returning f(x), df/dx expected, got '
         .. type(opfunc) .. ')')
   end
   if not torch.isTensor(x) then
      fail(fname, 'bad argument #2 (a tensor x expected, got ' .. torch.type(x) .. ')')
   end
   if config ~= nil and type(config) ~= 'table' then
      fail(fname, 'bad argument #3 (a config table or nil expected, got ' .. type(config) .. ')')
   end
   if state ~= nil and type(state) ~= 'table' then
      fail(fname, 'bad argument #4 (a state table or nil expected, got ' .. type(state) .. ')')
   end
end

-- f(x) as a plain number: a one-element tensor (what a criterion may hand back) is accepted.
local function number_of(fname, f)
   if type(f) == 'number' then return f end
   if torch.isTensor(f) and f:nElement() == 1 then return f:view(1)[1] end
   fail(fname, 'opfunc must return f(x) as a number, got ' .. torch.type(f))
end

-- For optimisers that only need f(x): the first value opfunc returns, as a number.
function checks.value(fname, f)
   return number_of(fname, f)
end

-- Evaluates opfunc at x and checks its answer: df/dx a tensor with as many elements as x.
-- With `numeric`, f(x) is also turned into a number (the line searches compare values).
function checks.eval(fname, opfunc, x, numeric)
   local f, dfdx = opfunc(x)
   if not torch.isTensor(dfdx) then
      fail(fname, 'opfunc must return f(x) and df/dx (a tensor), got ' .. torch.type(dfdx)
         .. ' for df/dx')
   end
   if dfdx:nElement() ~= x:nElement() then
      fail(fname, 'df/dx has ' .. dfdx:nElement() .. ' elements but x has ' .. x:nElement())
   end
   if numeric then f = number_of(fname, f) end
   return f, dfdx
end

-- A number option of `config`, or its default. Strings that read as numbers are accepted (and
-- converted), as Lua's arithmetic accepted them in Torch: options often come from a command line.
function checks.number(fname, config, key, default)
   local v = config[key]
   if v == nil then return default end
   local n = tonumber(v)
   if n == nil then
      fail(fname, 'config.' .. key .. ' must be a number, got ' .. type(v))
   end
   return n
end

-- An error naming the optimiser, blamed on its caller; for checks made by the optimiser itself.
function checks.fail(fname, msg)
   error(fname .. ': ' .. msg, 3)
end

return checks
