-- nn.ZipTable(): transposes a table of tables: {{a1, a2}, {b1, b2}, {c1, c2}} gives
-- {{a1, b1, c1}, {a2, b2, c2}}. Elements are passed by reference; the gradient is transposed back.

local ZipTable, parent = torch.class('nn.ZipTable', 'nn.Module')

function ZipTable:__init()
   parent.__init(self)
   self.output = {}
   self.gradInput = {}
end

-- result[j][i] = tables[i][j].
local function zip(tables, what)
   if type(tables) ~= 'table' then
      error('nn.ZipTable: the ' .. what .. ' must be a table of tables', 3)
   end
   local result = {}
   for i, inner in ipairs(tables) do
      if type(inner) ~= 'table' or torch.typename(inner) then
         error('nn.ZipTable: the ' .. what .. ' must be a table of tables (element ' .. i .. ' is not)', 3)
      end
      for j, value in ipairs(inner) do
         result[j] = result[j] or {}
         result[j][i] = value
      end
   end
   return result
end

function ZipTable:updateOutput(input)
   self.output = zip(input, 'input')
   return self.output
end

function ZipTable:updateGradInput(input, gradOutput)
   self.gradInput = zip(gradOutput, 'gradOutput')
   return self.gradInput
end

return ZipTable
