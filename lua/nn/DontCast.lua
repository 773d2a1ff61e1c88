-- nn.DontCast(module[, castin, castout, moduleType]): keeps `module` in its own tensor type when
-- the network around it is converted (:type() does not reach it). With castin, inputs of another
-- type are converted to moduleType before the module and the gradInput back to the input's type;
-- with castout (default castin), the output is converted to the type of the decorator's output
-- and the gradOutput back to moduleType. moduleType defaults to the module's current type.

require 'nn.Decorator'
local DontCast, parent = torch.class('nn.DontCast', 'nn.Decorator')

-- `src` (a tensor or nested table) copied into `dst` of tensor type `typename`, reusing dst.
local function recursiveTypeCopy(dst, src, typename)
   if torch.type(src) == 'table' then
      dst = torch.type(dst) == 'table' and dst or {}
      for k, v in pairs(src) do
         dst[k] = recursiveTypeCopy(dst[k], v, typename)
      end
   elseif torch.isTensor(src) then
      dst = torch.type(dst) == typename and dst or torch.getmetatable(typename).new()
      dst:resize(src:size())
      if src:nElement() > 0 then dst:copy(src) end
   end
   return dst
end

-- The type of the first tensor in `src` (a tensor or nested table), and whether one was found.
local function tableTensorType(src)
   if type(src) == 'table' then
      local typename, found
      for _, v in pairs(src) do
         typename, found = tableTensorType(v)
         if found then return typename, true end
      end
      return typename, found
   end
   return torch.type(src), torch.isTensor(src)
end

function DontCast:__init(module, castin, castout, moduleType)
   parent.__init(self, module)
   self.castin = castin
   self.castout = (castout == nil) and castin or castout
   self.moduleType = moduleType
   if (self.castin or self.castout) and not self.moduleType then
      local found
      self.moduleType, found = tableTensorType(module.output)
      if not found then
         self.moduleType, found = tableTensorType(module:parameters())
         if not found then
            error('nn.DontCast: cannot tell the module\'s tensor type: give it as the fourth argument')
         end
      end
   end
end

-- The input the module sees.
local function moduleInput(self, input)
   if self.castin and tableTensorType(input) ~= self.moduleType then
      return self._input
   end
   return input
end

function DontCast:updateOutput(input)
   if self.castin and tableTensorType(input) ~= self.moduleType then
      self._input = recursiveTypeCopy(self._input, input, self.moduleType)
   end
   local output = self.modules[1]:updateOutput(moduleInput(self, input))
   if self.castout then
      self.output = recursiveTypeCopy(self.output, output, tableTensorType(self.output))
   else
      self.output = output
   end
   return self.output
end

-- The gradOutput the module sees.
local function moduleGradOutput(self, gradOutput, convert)
   if self.castout and tableTensorType(gradOutput) ~= self.moduleType then
      if convert then
         self._gradOutput = recursiveTypeCopy(self._gradOutput, gradOutput, self.moduleType)
      end
      return self._gradOutput
   end
   return gradOutput
end

function DontCast:updateGradInput(input, gradOutput)
   local gradInput = self.modules[1]:updateGradInput(moduleInput(self, input), moduleGradOutput(self, gradOutput, true))
   if self.castin then
      self.gradInput = recursiveTypeCopy(self.gradInput, gradInput, tableTensorType(self.gradInput))
   else
      self.gradInput = gradInput
   end
   return self.gradInput
end

function DontCast:accGradParameters(input, gradOutput, scale)
   self.modules[1]:accGradParameters(moduleInput(self, input), moduleGradOutput(self, gradOutput), scale)
end

function DontCast:accUpdateGradParameters(input, gradOutput, lr)
   self.modules[1]:accUpdateGradParameters(moduleInput(self, input), moduleGradOutput(self, gradOutput), lr)
end

-- Only the decorator's own output and gradInput change type (those the network sees).
function DontCast:type(type)
   if self.castout and tableTensorType(self.output) ~= type then
      self.output = recursiveTypeCopy(nil, self.output, type)
   end
   if self.castin and tableTensorType(self.gradInput) ~= type then
      self.gradInput = recursiveTypeCopy(nil, self.gradInput, type)
   end
   return self
end

return DontCast
