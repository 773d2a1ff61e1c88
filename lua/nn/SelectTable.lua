-- nn.SelectTable(index): the element `index` of a table (negative numbers count from the end). The
-- gradient has the input's structure: zeros everywhere but at `index`, which gets gradOutput.

local SelectTable, parent = torch.class('nn.SelectTable', 'nn.Module')

function SelectTable:__init(index)
   parent.__init(self)
   assert(index ~= nil, 'nn.SelectTable: an index is expected')
   self.index = index
   self.gradInput = {}
end

local function position(self, input)
   if type(input) ~= 'table' then
      error('nn.SelectTable: the input must be a table', 3)
   end
   local index = self.index
   if type(index) == 'number' and index < 0 then
      index = #input + index + 1
   end
   if input[index] == nil then
      error(string.format('nn.SelectTable: index %s does not exist in the input table (of %d elements)',
         tostring(self.index), #input), 3)
   end
   return index
end

function SelectTable:updateOutput(input)
   self.output = input[position(self, input)]
   return self.output
end

-- `old` reshaped into zeros with the structure of `input` (tensors reused where their type fits).
local function zerosLike(old, input)
   if torch.isTensor(input) then
      local t = (torch.isTensor(old) and old:type() == input:type()) and old or input.new()
      return t:resizeAs(input):zero()
   elseif type(input) == 'table' then
      local t = (type(old) == 'table' and not torch.typename(old)) and old or {}
      for k, v in pairs(input) do t[k] = zerosLike(t[k], v) end
      for k in pairs(t) do
         if input[k] == nil then t[k] = nil end
      end
      return t
   end
   return nil
end

function SelectTable:updateGradInput(input, gradOutput)
   local index = position(self, input)
   self.gradInput = zerosLike(self.gradInput, input)
   self.gradInput[index] = nn.utils.recursiveCopy(self.gradInput[index], gradOutput)
   return self.gradInput
end

function SelectTable:type(type, tensorCache)
   self.gradInput = {}
   self.output = {}
   return parent.type(self, type, tensorCache)
end

-- output is one of the caller's tensors or tables: drop the reference, never empty it.
function SelectTable:clearState()
   self.output = {}
   self.gradInput = {}
   return self
end

function SelectTable:__tostring__()
   return torch.type(self) .. '(' .. tostring(self.index) .. ')'
end

return SelectTable
