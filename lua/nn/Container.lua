-- nn.Container: a module made of modules (`self.modules`). What applies to every module inside
-- (parameters, training mode, zeroing, types, clearing) is passed down here once for all
-- containers.

local Container, parent = torch.class('nn.Container', 'nn.Module')

function Container:__init(...)
   parent.__init(self, ...)
   self.modules = {}
end

function Container:add(module)
   table.insert(self.modules, module)
   return self
end

function Container:get(index)
   return self.modules[index]
end

function Container:size()
   return #self.modules
end

-- Calls the method `name` of each child (`self:rethrowErrors` names the failing child).
function Container:applyToModules(func)
   for _, module in ipairs(self.modules) do
      func(module)
   end
end

function Container:zeroGradParameters()
   self:applyToModules(function(module) module:zeroGradParameters() end)
end

function Container:updateParameters(learningRate)
   self:applyToModules(function(module) module:updateParameters(learningRate) end)
end

function Container:training()
   self:applyToModules(function(module) module:training() end)
   parent.training(self)
end

function Container:evaluate()
   self:applyToModules(function(module) module:evaluate() end)
   parent.evaluate(self)
end

function Container:share(mlp, ...)
   for i = 1, #self.modules do
      self.modules[i]:share(mlp.modules[i], ...)
   end
   return self
end

function Container:reset(stdv)
   self:applyToModules(function(module) module:reset(stdv) end)
end

-- The children's parameters and gradients, concatenated in order.
function Container:parameters()
   local w, gw = {}, {}
   for _, module in ipairs(self.modules) do
      local mw, mgw = module:parameters()
      if mw then
         for i = 1, #mw do
            w[#w + 1] = mw[i]
            gw[#gw + 1] = mgw[i]
         end
      end
   end
   return w, gw
end

function Container:clearState()
   -- Containers often keep the children's outputs as their own: clear what is theirs, then theirs.
   -- A new value rather than a resize, since a child may still hold the old one.
   for _, field in ipairs({ 'output', 'gradInput' }) do
      local value = self[field]
      if torch.isTensor(value) then
         self[field] = value.new()
      elseif type(value) == 'table' then
         self[field] = {}
      else
         self[field] = nil
      end
   end
   self:applyToModules(function(module) module:clearState() end)
   return self
end

-- Ends the stack trace that the innermost container adds to an error message, so that the
-- containers above it know the trace is there.
local TRACE_END = '(the stack trace above is where the error happened)'

-- Runs method `funcName` of child `moduleIndex`; an error in it is re-raised with one line per
-- container on the way down, outermost first, as the original nn does:
--   In 2 module of nn.Sequential:
--   In 1 module of nn.Concat:
--   <the error>
--   <stack trace where it happened>
function Container:rethrowErrors(module, moduleIndex, funcName, ...)
   assert(module == self.modules[moduleIndex], 'nn.Container.rethrowErrors: mismatch between module and index')
   local function handle(err)
      if type(err) ~= 'string' then
         return err
      end
      if not err:find(TRACE_END, 1, true) then
         err = err .. '\n' .. debug.traceback() .. '\n' .. TRACE_END
      end
      return string.format('In %d module of %s:\n%s', moduleIndex, torch.type(self), err)
   end
   local results = { xpcall(function(...) return module[funcName](module, ...) end, handle, ...) }
   if not results[1] then
      error(results[2], 0)
   end
   return unpack(results, 2, table.maxn(results))
end

-- nn's layout for containers whose modules take the same input:
-- nn.ConcatTable {
--   input
--     |`-> (1): nn.Linear(5 -> 5)
--      `-> (2): nn.Identity
--      ... -> output
-- }
function nn.branchesToString(self)
   local tab, line = '  ', '\n'
   local parts = { torch.type(self), ' {', line, tab, 'input' }
   for i, module in ipairs(self.modules) do
      local lastOne = i == #self.modules
      local arrow = lastOne and '   `-> ' or '  |`-> '
      local indent = lastOne and '       ' or '  |    '
      parts[#parts + 1] = line .. tab .. arrow .. '(' .. i .. '): ' .. tostring(module):gsub(line, line .. tab .. indent)
   end
   parts[#parts + 1] = line .. tab .. '   ... -> output'
   parts[#parts + 1] = line .. '}'
   return table.concat(parts)
end

return Container
