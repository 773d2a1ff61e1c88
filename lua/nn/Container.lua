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
   if self.output ~= nil then
      if torch.isTensor(self.output) then self.output = self.output.new() else self.output = nil end
   end
   if self.gradInput ~= nil then
      if torch.isTensor(self.gradInput) then self.gradInput = self.gradInput.new() else self.gradInput = nil end
   end
   self:applyToModules(function(module) module:clearState() end)
   return self
end

-- Runs `f(...)` for child `index`; an error in it is re-raised with the path to the child, so a
-- failure deep in a network says where it happened.
function Container:rethrowErrors(module, moduleIndex, funcName, ...)
   assert(module == self.modules[moduleIndex], 'nn.Container.rethrowErrors: mismatch between module and index')
   local function handle(err)
      if type(err) == 'string' and not err:find('In %d+%a* module') then
         local trace = debug.traceback()
         err = string.format('In %d%s module of %s:\n%s\n%s', moduleIndex, nn.ordinal_suffix(moduleIndex),
            torch.type(self), err, trace)
      end
      return err
   end
   local results = { xpcall(function(...) return module[funcName](module, ...) end, handle, ...) }
   if not results[1] then
      error(results[2], 0)
   end
   return unpack(results, 2)
end

function nn.ordinal_suffix(n)
   local last = n % 10
   local teen = n % 100 >= 11 and n % 100 <= 13
   if teen then return 'th' end
   if last == 1 then return 'st' elseif last == 2 then return 'nd' elseif last == 3 then return 'rd' end
   return 'th'
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
