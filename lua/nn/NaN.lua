-- nn.NaN(module[, id]): runs the module and raises an error naming it (and whether the NaN came
-- in with the input, the gradOutput or the parameters) as soon as its output, gradInput or
-- parameter gradients hold a NaN: for finding where NaNs start.

require 'nn.Decorator'
local NaN, parent = torch.class('nn.NaN', 'nn.Decorator')

local idseq = 0
function NaN.newId()
   idseq = idseq + 1
   return idseq
end

function NaN:__init(module, id)
   parent.__init(self, module)
   self.id = id or NaN.newId()
end

-- Whether a tensor (or nested table of them) holds a NaN: a NaN anywhere makes the sum NaN.
function NaN:recursiveIsNaN(tensor)
   if type(tensor) == 'table' then
      for _, v in pairs(tensor) do
         if self:recursiveIsNaN(v) then return true end
      end
      return false
   elseif torch.isTensor(tensor) then
      local s = tensor:sum()
      return s ~= s
   end
   return false
end

function NaN:updateOutput(input)
   self.output = self.modules[1]:updateOutput(input)
   if self:recursiveIsNaN(self.output) then
      if self:recursiveIsNaN(input) then
         error(string.format('NaN found in input of module :\n%s', self:__tostring__()))
      elseif self:recursiveIsNaN(self:parameters()) then
         error(string.format('NaN found in parameters of module :\n%s', self:__tostring__()))
      end
      error(string.format('NaN found in output of module :\n%s', self:__tostring__()))
   end
   return self.output
end

function NaN:updateGradInput(input, gradOutput)
   self.gradInput = self.modules[1]:updateGradInput(input, gradOutput)
   if self:recursiveIsNaN(self.gradInput) then
      if self:recursiveIsNaN(gradOutput) then
         error(string.format('NaN found in gradOutput of module :\n%s', self:__tostring__()))
      end
      error(string.format('NaN found in gradInput of module :\n%s', self:__tostring__()))
   end
   return self.gradInput
end

function NaN:accGradParameters(input, gradOutput, scale)
   self.modules[1]:accGradParameters(input, gradOutput, scale)
   local _, gradParams = self:parameters()
   if self:recursiveIsNaN(gradParams) then
      error(string.format('NaN found in gradParameters of module :\n%s', self:__tostring__()))
   end
end

function NaN:__tostring__()
   local inner = self.modules[1].__tostring__ and self.modules[1]:__tostring__() or torch.type(self.modules[1])
   return torch.type(self) .. '(' .. self.id .. ') @ ' .. inner
end

return NaN
