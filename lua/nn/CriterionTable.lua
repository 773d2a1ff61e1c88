-- nn.CriterionTable(criterion): a criterion as a module: the input is the table {input, target}, the
-- output the loss, and gradInput the table {gradient with respect to input}.

local CriterionTable, parent = torch.class('nn.CriterionTable', 'nn.Module')

function CriterionTable:__init(criterion)
   parent.__init(self)
   assert(criterion, 'nn.CriterionTable: a criterion is expected')
   self.criterion = criterion
   self.gradInput = { criterion.gradInput }
end

local function checkInput(input)
   if type(input) ~= 'table' or input[1] == nil then
      error('nn.CriterionTable: the input must be the table {input, target}', 3)
   end
end

function CriterionTable:updateOutput(input)
   checkInput(input)
   self.output = self.criterion:updateOutput(input[1], input[2])
   return self.output
end

function CriterionTable:updateGradInput(input, gradOutput)
   checkInput(input)
   self.gradInput[1] = self.criterion:updateGradInput(input[1], input[2])
   return self.gradInput
end

return CriterionTable
