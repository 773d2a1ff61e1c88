-- nn.ConcatTable: every module gets the same input; the output is the table of their outputs.

local ConcatTable, parent = torch.class('nn.ConcatTable', 'nn.Container')

function ConcatTable:__init()
   parent.__init(self)
   self.modules = {}
   self.output = {}
end

function ConcatTable:updateOutput(input)
   for i = 1, #self.modules do
      self.output[i] = self:rethrowErrors(self.modules[i], i, 'updateOutput', input)
   end
   for i = #self.modules + 1, #self.output do self.output[i] = nil end
   return self.output
end

-- Adds gradient `g` (a tensor or nested table) into `acc`, copying on the first module.
local function accumulate(acc, g, first)
   if torch.isTensor(g) then
      acc = torch.isTensor(acc) and acc or g.new()
      if first then
         acc:resizeAs(g):copy(g)
      else
         acc:add(g)
      end
      return acc
   end
   acc = (type(acc) == 'table' and not torch.isTensor(acc)) and acc or {}
   for k, v in pairs(g) do
      acc[k] = accumulate(acc[k], v, first)
   end
   return acc
end

local function backwardPass(self, method, input, gradOutput, scale)
   if type(input) == 'table' then
      local grads = {}
      for i, module in ipairs(self.modules) do
         local g = self:rethrowErrors(module, i, method, input, gradOutput[i], scale)
         if g then grads[#grads + 1] = g end
      end
      -- Sum the children's gradients, table by table (the input is a table of tensors).
      self.gradInput = type(self.gradInput) == 'table' and not torch.isTensor(self.gradInput) and self.gradInput
         or {}
      nn.utils.recursiveResizeAs(self.gradInput, input)
      nn.utils.recursiveFill(self.gradInput, 0)
      for _, g in ipairs(grads) do
         nn.utils.recursiveAdd(self.gradInput, g)
      end
   else
      self.gradInput = torch.isTensor(self.gradInput) and self.gradInput or input.new()
      local first = true
      for i, module in ipairs(self.modules) do
         local g = self:rethrowErrors(module, i, method, input, gradOutput[i], scale)
         if g then
            self.gradInput = accumulate(self.gradInput, g, first)
            first = false
         end
      end
      if first then self.gradInput:resizeAs(input):zero() end
   end
   return self.gradInput
end

function ConcatTable:updateGradInput(input, gradOutput)
   return backwardPass(self, 'updateGradInput', input, gradOutput)
end

function ConcatTable:backward(input, gradOutput, scale)
   return backwardPass(self, 'backward', input, gradOutput, scale or 1)
end

function ConcatTable:accGradParameters(input, gradOutput, scale)
   scale = scale or 1
   for i, module in ipairs(self.modules) do
      self:rethrowErrors(module, i, 'accGradParameters', input, gradOutput[i], scale)
   end
end

function ConcatTable:accUpdateGradParameters(input, gradOutput, lr)
   for i, module in ipairs(self.modules) do
      self:rethrowErrors(module, i, 'accUpdateGradParameters', input, gradOutput[i], lr)
   end
end

ConcatTable.__tostring__ = nn.branchesToString

return ConcatTable
