-- nn.Sequential: the output of each module is the input of the next.

local Sequential, _ = torch.class('nn.Sequential', 'nn.Container')

function Sequential:__len()
   return #self.modules
end

function Sequential:add(module)
   if #self.modules == 0 then
      self.gradInput = module.gradInput
   end
   table.insert(self.modules, module)
   self.output = module.output
   return self
end

function Sequential:insert(module, index)
   index = index or (#self.modules + 1)
   if index > #self.modules + 1 or index < 1 then
      error('nn.Sequential.insert: index ' .. index .. ' is out of range', 2)
   end
   table.insert(self.modules, index, module)
   self.output = self.modules[#self.modules].output
   self.gradInput = self.modules[1].gradInput
   return self
end

function Sequential:remove(index)
   index = index or #self.modules
   if index > #self.modules or index < 1 then
      error('nn.Sequential.remove: index ' .. index .. ' is out of range', 2)
   end
   table.remove(self.modules, index)
   if #self.modules > 0 then
      self.output = self.modules[#self.modules].output
      self.gradInput = self.modules[1].gradInput
   else
      self.output = torch.Tensor()
      self.gradInput = torch.Tensor()
   end
   return self
end

function Sequential:updateOutput(input)
   local current = input
   for i = 1, #self.modules do
      current = self:rethrowErrors(self.modules[i], i, 'updateOutput', current)
   end
   self.output = current
   return current
end

function Sequential:updateGradInput(input, gradOutput)
   local currentGradOutput = gradOutput
   for i = #self.modules, 2, -1 do
      local previous = self.modules[i - 1]
      currentGradOutput = self:rethrowErrors(self.modules[i], i, 'updateGradInput', previous.output,
         currentGradOutput)
   end
   currentGradOutput = self:rethrowErrors(self.modules[1], 1, 'updateGradInput', input, currentGradOutput)
   self.gradInput = currentGradOutput
   return currentGradOutput
end

function Sequential:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   local currentGradOutput = gradOutput
   for i = #self.modules, 2, -1 do
      local current, previous = self.modules[i], self.modules[i - 1]
      self:rethrowErrors(current, i, 'accGradParameters', previous.output, currentGradOutput, scale)
      currentGradOutput = current.gradInput
   end
   self:rethrowErrors(self.modules[1], 1, 'accGradParameters', input, currentGradOutput, scale)
end

function Sequential:backward(input, gradOutput, scale)
   scale = scale or 1
   local currentGradOutput = gradOutput
   for i = #self.modules, 2, -1 do
      local previous = self.modules[i - 1]
      currentGradOutput = self:rethrowErrors(self.modules[i], i, 'backward', previous.output, currentGradOutput,
         scale)
   end
   currentGradOutput = self:rethrowErrors(self.modules[1], 1, 'backward', input, currentGradOutput, scale)
   self.gradInput = currentGradOutput
   return currentGradOutput
end

function Sequential:accUpdateGradParameters(input, gradOutput, lr)
   local currentGradOutput = gradOutput
   for i = #self.modules, 2, -1 do
      local current, previous = self.modules[i], self.modules[i - 1]
      self:rethrowErrors(current, i, 'accUpdateGradParameters', previous.output, currentGradOutput, lr)
      currentGradOutput = current.gradInput
   end
   self:rethrowErrors(self.modules[1], 1, 'accUpdateGradParameters', input, currentGradOutput, lr)
end

-- nn's layout:
-- nn.Sequential {
--   [input -> (1) -> (2) -> output]
--   (1): nn.Linear(10 -> 20)
--   (2): nn.Tanh
-- }
function Sequential:__tostring__()
   local tab, line, arrow = '  ', '\n', ' -> '
   local parts = { torch.type(self), ' {', line, tab, '[input' }
   for i = 1, #self.modules do
      parts[#parts + 1] = arrow .. '(' .. i .. ')'
   end
   parts[#parts + 1] = arrow .. 'output]'
   for i, module in ipairs(self.modules) do
      parts[#parts + 1] = line .. tab .. '(' .. i .. '): ' .. tostring(module):gsub(line, line .. tab)
   end
   parts[#parts + 1] = line .. '}'
   return table.concat(parts)
end

return Sequential
